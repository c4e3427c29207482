/* SPDX-License-Identifier: MIT */
/*
 * What the host hands a VNIC port through its TAP: a virtio_net_hdr and a frame, both the
 * host's to choose (any local process can send on the interface).  The checksum completion
 * and the segmentation must stay inside the frame and their output buffers whatever the
 * header says, and every segment of a super-frame must carry the headers and at most mss
 * payload bytes.
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/opa/vnic_gso.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtio_net_hdr h;
	struct opa_gso g;
	uint8_t *frame, *out;
	size_t len;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	len = size - sizeof(h);
	if (len > FRAME_MAX)
		len = FRAME_MAX;
	/* Exactly the frame's bytes, so that ASan sees any read past them. */
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + sizeof(h), len);
	if (opa_gso_parse(&h, frame, len, &g) == 0) {
		if (g.nseg < 1 || g.hlen + g.payload != len || g.mss == 0)
			abort();
		out = malloc(g.hlen + g.mss);
		for (unsigned i = 0; out && i < g.nseg && i < 128; i++) {
			size_t n = opa_gso_segment(&g, frame, i, out);

			if (n < g.hlen || n > g.hlen + g.mss)
				abort();
		}
		free(out);
	} else {
		(void)opa_vnet_csum(&h, frame, len);
	}
	free(frame);
	return 0;
}
