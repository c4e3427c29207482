/* SPDX-License-Identifier: MIT */
/*
 * Fuzz targets: each defines LLVMFuzzerTestOneInput.  `make fuzz` links them
 * with libFuzzer (clang); the normal build links them with replay.c, which runs
 * the saved corpus once, so `make check` replays every input found so far.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
