/* SPDX-License-Identifier: MIT */
/* A line of the shell or of a batch file as words, quotes grouping them. */
#include "cmd/rdmactl.h"

int split_words(char *line, char **words, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *out;
		char quote = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return -1;
		words[n++] = out = p;
		while (*p && (quote || (*p != ' ' && *p != '\t'))) {
			if (!quote && (*p == '\'' || *p == '"'))
				quote = *p++;
			else if (quote && *p == quote) {
				quote = 0;
				p++;
			} else
				*out++ = *p++;
		}
		if (*p)
			p++;
		*out = '\0';
	}
}
