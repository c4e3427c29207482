/* SPDX-License-Identifier: MIT */
#include "dataplane/roce/reason.h"

static const char *const names[ROCE_REASON_COUNT] = {
	[ROCE_OK] = "ok",
	[ROCE_SHORT] = "short",
	[ROCE_BAD_LENGTH] = "bad_length",
	[ROCE_BAD_FIELD] = "bad_field",
	[ROCE_NO_ROOM] = "no_room",
	[ROCE_TOO_LONG] = "too_long",
	[ROCE_BAD_OPCODE] = "bad_opcode",
	[ROCE_BAD_TVER] = "bad_tver",
	[ROCE_BAD_PAD] = "bad_pad",
	[ROCE_UNEXPECTED_PAYLOAD] = "unexpected_payload",
	[ROCE_BAD_SYNDROME] = "bad_syndrome",
	[ROCE_BAD_IP] = "bad_ip",
	[ROCE_BAD_ICRC] = "bad_icrc",
	[ROCE_ICRC_OTHER_ID] = "icrc_other_id",
	[ROCE_FRAGMENT] = "fragment",
	[ROCE_BAD_CSUM] = "bad_csum",
	[ROCE_BAD_LINK] = "bad_link",
};

const char *roce_reason_name(enum roce_reason r)
{
	if ((unsigned int)r >= ROCE_REASON_COUNT)
		return "unknown";
	return names[r];
}
