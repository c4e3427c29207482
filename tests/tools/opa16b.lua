-- SPDX-License-Identifier: MIT
--
-- opa16b.lua - Wireshark/tshark dissector for Omni-Path 16B VNIC packets and for the
-- software fabric's UDP datagrams (docs/opa-fabric.md, reference opa_vnic.md section 4.1-4.2
-- and section 6.2 recipe C).  Wireshark has no 16B dissector of its own.
--
--   tshark -X lua_script:tests/tools/opa16b.lua -r B.pcap                  (USER0 = 16B packets)
--   tshark -X lua_script:tests/tools/opa16b.lua -r capture.pcapng          (UDP port 4795)
--   tshark -X lua_script:tests/tools/opa16b.lua -o opafabric.port:4800 ... (another port)
--   ... -T fields -e opa16b.slid -e opa16b.dlid -e opa16b.veswid -e eth.dst
--
-- The 16B header is four little-endian 32-bit words; the LIDs are 24 bits, their low 20 bits
-- in W0/W1 and their high 4 bits in W2.  The Ethernet frame follows the 20-byte VNIC
-- header; the packet ends with pad, a 4-byte ICRC and a tail byte whose low 3 bits count
-- the pad.  Fabric datagrams: byte 0 = 0x09 (a 9B MAD packet, handed to Wireshark's own
-- "opa" dissector) or 0x10 (a 16B packet, decoded here).

local p16 = Proto("opa16b", "Omni-Path 16B VNIC packet")
local f = p16.fields
f.slid    = ProtoField.uint32("opa16b.slid", "SLID", base.HEX)
f.dlid    = ProtoField.uint32("opa16b.dlid", "DLID", base.HEX)
f.len     = ProtoField.uint16("opa16b.len", "Length (8-byte flits)", base.DEC)
f.becn    = ProtoField.uint8("opa16b.becn", "BECN", base.DEC)
f.fecn    = ProtoField.uint8("opa16b.fecn", "FECN", base.DEC)
f.sc      = ProtoField.uint8("opa16b.sc", "SC", base.DEC)
f.rc      = ProtoField.uint8("opa16b.rc", "RC", base.DEC)
f.l2      = ProtoField.uint8("opa16b.l2", "L2", base.DEC)
f.lt      = ProtoField.uint8("opa16b.lt", "LT (head flit)", base.DEC)
f.l4      = ProtoField.uint8("opa16b.l4", "L4 type", base.HEX)
f.pkey    = ProtoField.uint16("opa16b.pkey", "P_Key", base.HEX)
f.entropy = ProtoField.uint16("opa16b.entropy", "Entropy", base.HEX)
f.age     = ProtoField.uint8("opa16b.age", "Age", base.DEC)
f.veswid  = ProtoField.uint16("opa16b.veswid", "VESW ID", base.HEX)
f.pad     = ProtoField.uint8("opa16b.pad", "Pad bytes", base.DEC)
f.icrc    = ProtoField.uint32("opa16b.icrc", "ICRC", base.HEX)
f.tail    = ProtoField.uint8("opa16b.tail", "Tail", base.HEX)

local e_len = ProtoExpert.new("opa16b.len.bad", "Length field does not match the packet size",
                              expert.group.MALFORMED, expert.severity.ERROR)
local e_short = ProtoExpert.new("opa16b.short", "Shorter than the 16B + VNIC headers and trailer",
                                expert.group.MALFORMED, expert.severity.ERROR)
p16.experts = { e_len, e_short }

local HDR = 20          -- 16-byte 16B header + 2 reserved bytes + 2-byte VNIC L4 header (vesw_id)
local TRAILER = 5       -- ICRC + tail
local eth = Dissector.get("eth_withoutfcs")

local function bits(word, shift, width)
	return bit.band(bit.rshift(word, shift), bit.lshift(1, width) - 1)
end

function p16.dissector(tvb, pinfo, tree)
	local n = tvb:len()
	pinfo.cols.protocol = "OPA16B"
	local t = tree:add(p16, tvb(0, math.min(n, HDR)))
	if n < HDR + TRAILER then
		t:add_proto_expert_info(e_short)
		return n
	end
	local w0, w1 = tvb(0, 4):le_uint(), tvb(4, 4):le_uint()
	local w2, w3 = tvb(8, 4):le_uint(), tvb(12, 4):le_uint()
	local slid = bits(w0, 0, 20) + bits(w2, 8, 4) * 0x100000
	local dlid = bits(w1, 0, 20) + bits(w2, 12, 4) * 0x100000
	local flits = bits(w0, 20, 11)
	t:add(f.slid, tvb(0, 4), slid)
	local lt = t:add(f.len, tvb(0, 4), flits)
	if flits * 8 ~= n then
		lt:add_proto_expert_info(e_len)
	end
	t:add(f.becn, tvb(0, 4), bits(w0, 31, 1))
	t:add(f.dlid, tvb(4, 4), dlid)
	t:add(f.sc, tvb(4, 4), bits(w1, 20, 5))
	t:add(f.rc, tvb(4, 4), bits(w1, 25, 3))
	t:add(f.fecn, tvb(4, 4), bits(w1, 28, 1))
	t:add(f.l2, tvb(4, 4), bits(w1, 29, 2))
	t:add(f.lt, tvb(4, 4), bits(w1, 31, 1))
	local l4 = bits(w2, 0, 8)
	t:add(f.l4, tvb(8, 4), l4)
	t:add(f.pkey, tvb(8, 4), bits(w2, 16, 16))
	t:add(f.entropy, tvb(12, 4), bits(w3, 0, 16))
	t:add(f.age, tvb(12, 4), bits(w3, 16, 8))
	t:add(f.veswid, tvb(18, 2), bit.band(tvb(18, 2):le_uint(), 0xfff))
	local tail = tvb(n - 1, 1):uint()
	local pad = bit.band(tail, 7)
	t:add(f.pad, tvb(n - 1, 1), pad)
	t:add(f.icrc, tvb(n - TRAILER, 4), tvb(n - TRAILER, 4):le_uint())
	t:add(f.tail, tvb(n - 1, 1), tail)
	pinfo.cols.info = string.format("16B SLID 0x%06x -> DLID 0x%06x SC %d vesw 0x%03x",
	                                slid, dlid, bits(w1, 20, 5), bit.band(tvb(18, 2):le_uint(), 0xfff))
	local frame = n - HDR - TRAILER - pad
	if l4 == 0x78 and frame > 0 then
		eth:call(tvb(HDR, frame):tvb(), pinfo, tree)
	end
	return n
end

DissectorTable.get("wtap_encap"):add(wtap.USER0, p16)

-- The software fabric's datagrams on UDP.
local pf = Proto("opafabric", "rdmad software Omni-Path fabric")
pf.fields.type = ProtoField.uint8("opafabric.type", "Packet type", base.HEX,
                                  { [0x09] = "9B MAD packet", [0x10] = "16B packet" })
pf.prefs.port = Pref.uint("UDP port", 4795, "the fabric's UDP port (rdmad.conf fabric_address)")
local opa9b = Dissector.get("opa")
local registered_port

local function register_port()
	local udp = DissectorTable.get("udp.port")
	if registered_port then
		udp:remove(registered_port, pf)
	end
	registered_port = pf.prefs.port
	udp:add(registered_port, pf)
end

function pf.prefs_changed()
	register_port()
end

function pf.dissector(tvb, pinfo, tree)
	if tvb:len() < 1 then
		return 0
	end
	local kind = tvb(0, 1):uint()
	local t = tree:add(pf, tvb(0, 1))
	t:add(pf.fields.type, tvb(0, 1))
	if kind == 0x10 then
		return 1 + p16.dissector(tvb(1):tvb(), pinfo, tree)
	elseif kind == 0x09 and opa9b then
		opa9b:call(tvb(1):tvb(), pinfo, tree)
		return tvb:len()
	end
	pinfo.cols.protocol = "OPAFABRIC"
	return tvb:len()
end

register_port()
