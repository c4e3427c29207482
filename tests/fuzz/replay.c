/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target once over every file of the given directories (or files). */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc(n > 0 ? (size_t)n : 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)n);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			count += run_file(argv[i]) == 0;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0) {
				perror(path);
				closedir(d);
				return 1;
			}
			count++;
		}
		if (d)
			closedir(d);
	}
	printf("%u inputs replayed\n", count);
	return 0;
}
