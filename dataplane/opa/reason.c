/* SPDX-License-Identifier: MIT */
#include "dataplane/opa/reason.h"

static const char *const names[OPA_REASON_COUNT] = {
	[OPA_OK] = "ok",
	[OPA_SHORT] = "short",
	[OPA_BAD_LENGTH] = "bad_length",
	[OPA_BAD_FIELD] = "bad_field",
	[OPA_NO_ROOM] = "no_room",
	[OPA_TOO_LONG] = "too_long",
	[OPA_BAD_L2] = "bad_l2",
	[OPA_BAD_LT] = "bad_lt",
	[OPA_BAD_L4] = "bad_l4",
	[OPA_BAD_VESW] = "bad_vesw",
	[OPA_RUNT] = "runt",
	[OPA_OVERSIZE] = "oversize",
	[OPA_DLID_ZERO] = "dlid_zero",
	[OPA_BAD_LNH] = "bad_lnh",
	[OPA_BAD_LVER] = "bad_lver",
	[OPA_BAD_OPCODE] = "bad_opcode",
	[OPA_BAD_TVER] = "bad_tver",
	[OPA_BAD_QP] = "bad_qp",
	[OPA_BAD_QKEY] = "bad_qkey",
	[OPA_BAD_MAD_LEN] = "bad_mad_len",
	[OPA_BAD_ICRC] = "bad_icrc",
};

const char *opa_reason_name(enum opa_reason r)
{
	if ((unsigned int)r >= OPA_REASON_COUNT)
		return "unknown";
	return names[r];
}
