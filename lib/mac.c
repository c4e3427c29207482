/* SPDX-License-Identifier: MIT */
#include "lib/mac.h"

#include <stdio.h>

int mac_parse(const char *text, uint8_t mac[6])
{
	unsigned b[6];
	char end;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}
