/* SPDX-License-Identifier: MIT */
/* Ethernet MAC addresses as text, xx:xx:xx:xx:xx:xx. */
#pragma once

#include <stdint.h>

/* text as six bytes: 0, or -1 when it is not xx:xx:xx:xx:xx:xx. */
int mac_parse(const char *text, uint8_t mac[6]);
