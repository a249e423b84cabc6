-- AckAttack: a Wireshark dissector for every datagram, packet and game message of the
-- AckAttack protocol (net/PROTOCOL.md, game/PROTOCOL.md; the Go code in net/wire, net/message
-- and game/msg*.go is the reference). It opens the sealed datagrams of a connection with the
-- key file that --record writes beside a capture (net/record), as Wireshark reads TLS with a
-- key log file. README.md beside this file says how to use it.
--
--   tshark -X lua_script:assets/wireshark/ackattack.lua -o ackattack.keys:game.pcapng.keys -r game.pcapng
--
-- Plain Lua 5.2 (Wireshark 3.x and 4.0) to 5.4 (Wireshark 4.2 and later): the bit operations
-- come from bit32, from LuaBitOp's bit, or from the language itself, whichever is there.

local ackattack = Proto("ackattack", "AckAttack")

----------------------------------------------------------------------------------------------
-- 32-bit operations: band, bor, bxor, shl, shr, rol, each giving an unsigned 32-bit result.

local B = {}
if bit32 then
	B.band, B.bor, B.bxor = bit32.band, bit32.bor, bit32.bxor
	B.shl, B.shr, B.rol = bit32.lshift, bit32.rshift, bit32.lrotate
elseif bit then
	local function u(x) return x % 4294967296 end
	B.band = function(a, b) return u(bit.band(a, b)) end
	B.bor = function(a, b) return u(bit.bor(a, b)) end
	B.bxor = function(a, b) return u(bit.bxor(a, b)) end
	B.shl = function(a, n) return u(bit.lshift(a, n)) end
	B.shr = function(a, n) return u(bit.rshift(a, n)) end
	B.rol = function(a, n) return u(bit.rol(a, n)) end
else
	-- Lua 5.3 and later: the operators, compiled from a string so that a 5.2 parser never
	-- sees them.
	B = load([[
		local M = 0xFFFFFFFF
		return {
			band = function(a, b) return a & b end,
			bor = function(a, b) return a | b end,
			bxor = function(a, b) return a ~ b end,
			shl = function(a, n) return (a << n) & M end,
			shr = function(a, n) return a >> n end,
			rol = function(a, n) return ((a << n) | (a >> (32 - n))) & M end,
		}
	]])()
end
local band, bor, bxor, shl, shr, rol = B.band, B.bor, B.bxor, B.shl, B.shr, B.rol
local TWO32 = 4294967296
local unpack = table.unpack or unpack

----------------------------------------------------------------------------------------------
-- CRC-32C (Castagnoli, reflected 0x82F63B78) of the plain frame: over ProtocolID ("ACKATT01"),
-- eight zero bytes, and the datagram from its byte 4 on.

local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) == 1 then
			c = bxor(shr(c, 1), 0x82F63B78)
		else
			c = shr(c, 1)
		end
	end
	crc_table[i] = c
end

local crc_prefix = "ACKATT01" .. string.rep("\0", 8)

local function crc32c(s, crc)
	for i = 1, #s do
		crc = bxor(crc_table[band(bxor(crc, s:byte(i)), 0xFF)], shr(crc, 8))
	end
	return crc
end

local function plain_checksum(raw)
	local crc = crc32c(crc_prefix, 0xFFFFFFFF)
	crc = crc32c(raw:sub(5), crc)
	return bxor(crc, 0xFFFFFFFF)
end

----------------------------------------------------------------------------------------------
-- ChaCha20 (RFC 8439), decryption only: the sealed frame's packet is the ciphertext, and the
-- keystream starts at block 1 (block 0 makes the Poly1305 key, which a reader that trusts the
-- capture does not need: the tag is not checked).

local function le32(s, i)
	local a, b, c, d = s:byte(i, i + 3)
	return a + b * 256 + c * 65536 + d * 16777216
end

local function chacha_block(key, counter, nonce)
	local x = {
		0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
		le32(key, 1), le32(key, 5), le32(key, 9), le32(key, 13),
		le32(key, 17), le32(key, 21), le32(key, 25), le32(key, 29),
		counter, le32(nonce, 1), le32(nonce, 5), le32(nonce, 9),
	}
	local s = {}
	for i = 1, 16 do s[i] = x[i] end
	local function qr(a, b, c, d)
		s[a] = (s[a] + s[b]) % TWO32; s[d] = rol(bxor(s[d], s[a]), 16)
		s[c] = (s[c] + s[d]) % TWO32; s[b] = rol(bxor(s[b], s[c]), 12)
		s[a] = (s[a] + s[b]) % TWO32; s[d] = rol(bxor(s[d], s[a]), 8)
		s[c] = (s[c] + s[d]) % TWO32; s[b] = rol(bxor(s[b], s[c]), 7)
	end
	for _ = 1, 10 do
		qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15); qr(4, 8, 12, 16)
		qr(1, 6, 11, 16); qr(2, 7, 12, 13); qr(3, 8, 9, 14); qr(4, 5, 10, 15)
	end
	local out = {}
	for i = 1, 16 do
		local w = (s[i] + x[i]) % TWO32
		out[#out + 1] = band(w, 0xFF)
		out[#out + 1] = band(shr(w, 8), 0xFF)
		out[#out + 1] = band(shr(w, 16), 0xFF)
		out[#out + 1] = shr(w, 24)
	end
	return out
end

-- chacha20 decrypts the string data with the 32-byte key and the 12-byte nonce.
local function chacha20(key, nonce, data)
	local out = {}
	local block = 1
	for off = 1, #data, 64 do
		local ks = chacha_block(key, block, nonce)
		local chunk = {}
		for i = 0, math.min(63, #data - off) do
			chunk[#chunk + 1] = string.char(bxor(data:byte(off + i), ks[i + 1]))
		end
		out[#out + 1] = table.concat(chunk)
		block = block + 1
	end
	return table.concat(out)
end

-- The nonce of a datagram's counter: 00 00 00 00, then the 64-bit counter big-endian.
local function counter_nonce(counter)
	local hi, lo = math.floor(counter / TWO32), counter % TWO32
	local b = { 0, 0, 0, 0 }
	for _, w in ipairs({ hi, lo }) do
		b[#b + 1] = band(shr(w, 24), 0xFF)
		b[#b + 1] = band(shr(w, 16), 0xFF)
		b[#b + 1] = band(shr(w, 8), 0xFF)
		b[#b + 1] = band(w, 0xFF)
	end
	return string.char(unpack(b))
end

-- The full counter from its low 16 bits and next, the counter after the largest one seen in
-- this direction (wire.ExpandCounter, RFC 9000 appendix A.3 with a 16-bit field).
local function expand_counter(next, low)
	local window, half = 65536, 32768
	local c = next - next % window + low
	if c <= next and next - c >= half then
		return c + window
	elseif c > next and c - next > half and c >= window then
		return c - window
	end
	return c
end

----------------------------------------------------------------------------------------------
-- The key file (net/record/keys.go):
--   ACKATTACK_KEY <unix nanoseconds> <from address:port> <to address:port> <key, 64 hex digits>

local keys_by_dir = {} -- "from>to" -> list of { at = seconds, key = 32-byte string }, in file order
local keys_loaded_from = nil
local keys_count = 0

local function hex_to_raw(h)
	return (h:gsub("..", function(x) return string.char(tonumber(x, 16)) end))
end

local function load_keys(path)
	keys_by_dir, keys_count = {}, 0
	keys_loaded_from = path
	if path == nil or path == "" then return end
	local f = io.open(path, "r")
	if not f then return end
	for line in f:lines() do
		local ns, from, to, key = line:match("^%s*ACKATTACK_KEY%s+(%-?%d+)%s+(%S+)%s+(%S+)%s+(%x+)%s*$")
		if ns and #key == 64 then
			local dir = from .. ">" .. to
			keys_by_dir[dir] = keys_by_dir[dir] or {}
			table.insert(keys_by_dir[dir], { at = tonumber(ns) / 1e9, key = hex_to_raw(key) })
			keys_count = keys_count + 1
		end
	end
	f:close()
end

----------------------------------------------------------------------------------------------
-- Preferences.

ackattack.prefs.keys = Pref.string("Key file", "",
	"The key file that --record wrote beside the capture (NAME.keys); empty: $ACKATTACK_KEYS")
ackattack.prefs.port = Pref.uint("UDP port", 7777, "The port of a game server (direct links between clients are found by their keys or checksum)")

local function keys_path()
	local p = ackattack.prefs.keys
	if p == nil or p == "" then p = os.getenv("ACKATTACK_KEYS") end
	return p
end

----------------------------------------------------------------------------------------------
-- Fields.

local F = {}
local function field(name, ...)
	local f
	local args = { ... }
	local kind = table.remove(args, 1)
	f = ProtoField[kind]("ackattack." .. name, unpack(args, 1, 5))
	F[name] = f
	return f
end

local packet_types = {
	[1] = "Data", [2] = "ConnectRequest", [3] = "Challenge", [4] = "ChallengeResponse",
	[5] = "Accepted", [6] = "Denied", [7] = "Disconnect", [8] = "Ping", [9] = "Pong",
}
local deny_reasons = { [1] = "server full", [2] = "version", [3] = "challenge", [4] = "bad request" }
local roles = { [0] = "player", [1] = "observer" }
local disconnect_reasons = {
	[1] = "closed", [2] = "kicked", [3] = "timeout", [4] = "connection error", [5] = "replaced",
	[6] = "server shutdown",
}
local record_kinds = { [1] = "unreliable", [2] = "guaranteed", [3] = "fragment" }

field("frame", "string", "Frame")
field("dropped", "bool", "Dropped before it reached the other side")
field("checksum", "uint32", "Checksum", base.HEX)
field("checksum_good", "bool", "Checksum good")
field("counter16", "uint16", "Counter (low 16 bits)")
field("counter", "uint64", "Counter")
field("tag", "bytes", "Tag")
field("opened", "bool", "Opened with a key of the key file")
field("ciphertext", "bytes", "Sealed packet")
field("type", "uint8", "Packet type", base.DEC, packet_types)
-- Data header
field("flags", "uint8", "Flags", base.HEX)
field("flags.ack_bytes", "uint8", "Ack-bits bytes present", base.HEX, nil, 0x0F)
field("flags.short_ack", "bool", "Ack as a 1-byte distance", 8, nil, 0x10)
field("flags.reserved", "uint8", "Reserved", base.HEX, nil, 0xE0)
field("seq", "uint16", "Seq")
field("ack", "uint16", "Ack")
field("ack_distance", "uint8", "Ack distance (Seq - Ack)")
field("ack_bits", "uint32", "Ack bits", base.HEX)
field("not_acked", "uint16", "Not received")
field("records", "uint16", "Message records")
-- Records
field("record", "string", "Record")
field("record.kind", "uint8", "Kind", base.DEC, record_kinds, 0x03)
field("record.sync", "bool", "Sync (stop-and-wait)", 8, nil, 0x04)
field("record.reserved", "uint8", "Reserved", base.HEX, nil, 0xF8)
field("msg.seq", "uint16", "Message seq")
field("msg.dep", "uint16", "Depends on")
field("msg.deps", "uint8", "Dependencies")
field("frag.index", "uint8", "Fragment index")
field("frag.count", "uint8", "Fragment count")
field("frag.total", "uint32", "Whole message length")
field("frag.reassembled", "uint32", "Reassembled in frame")
field("length", "uint32", "Payload length")
field("payload", "bytes", "Payload")
-- Connection packets
field("version", "uint8", "Protocol version")
field("player", "bytes", "Player id")
field("name", "string", "Name")
field("role", "uint8", "Role", base.DEC, roles)
field("padding", "bytes", "Padding")
field("issued", "uint64", "Issued (Unix ms)")
field("challenge_tag", "bytes", "Challenge tag")
field("public_key", "bytes", "X25519 public key")
field("deny_reason", "uint8", "Reason", base.DEC, deny_reasons)
field("disconnect_reason", "uint8", "Reason", base.DEC, disconnect_reasons)
field("text", "string", "Text")
field("ping.id", "uint32", "Ping id")
field("ping.t0", "int64", "t0 (Unix ns)")
field("ping.t1", "int64", "t1 (Unix ns)")
field("ping.t2", "int64", "t2 (Unix ns)")

----------------------------------------------------------------------------------------------
-- Game messages (game/msg.go, game/PROTOCOL.md section 3), described as data: each message is
-- a list of fields { name, type }, and decode_fields walks it. Types: u8, u16, u32, u64, i64, u30,
-- i30, seat, string, bytesN (N raw bytes), {list = fields} (a u30 count, then that many
-- elements), unit, attack, and the few fields that depend on others, as functions. A list
-- marked optional ends its message and is left out when empty: no bytes left, no list; flags
-- marked optional end theirs and are left out when every bit is clear; a field marked with =
-- "name" is there only when the field it names is.

local msg_types = {
	[1] = "PlayerInfo", [2] = "StartGame", [3] = "Command", [4] = "SpawnEnemy", [5] = "KillEnemy",
	[6] = "Chat", [7] = "LeadTime", [8] = "PingSummary", [9] = "HashReport", [10] = "HashRequest",
	[11] = "UnitHashes", [12] = "UnitUpdate", [13] = "Pause", [14] = "WorldHashes",
	[15] = "ResyncBatch", [16] = "BatchApplied", [17] = "Resume", [18] = "FrameSync", [19] = "Peers",
	[20] = "PlayerSecret", [21] = "Challenge", [22] = "Proof", [23] = "Reinforce", [24] = "NewRound",
	[25] = "ClassLink", [26] = "Spectate", [27] = "SpectatorChat", [28] = "LinkLost",
}
field("game.type", "uint8", "Game message", base.DEC, msg_types)
field("game.count", "uint32", "Count")

local command_kinds = { [1] = "move", [2] = "attack", [3] = "stop" }
local unit_orders = { [0] = "none", [1] = "move", [2] = "attack" }

local link_lost_why = { [1] = "quiet", [2] = "stalled", [3] = "ended" }
local spectate_why = { [1] = "asked", [2] = "seats full" }
local refused_why = { [0] = "none", [1] = "chat off", [2] = "too fast" }
local id_hash = { { "id", "u30" }, { "hash", "u64" } }
-- A command's direct: bit s set when its player sent it to seat s over a direct link.
local direct_seats = { { "seat0", 0x01 }, { "seat1", 0x02 }, { "seat2", 0x04 }, { "seat3", 0x08 },
	{ "seat4", 0x10 }, { "seat5", 0x20 }, { "seat6", 0x40 }, { "seat7", 0x80 } }
local layouts = {
	[1] = { { "seat", "seat" }, { "player", "bytes16" }, { "name", "string" },
		{ "flags", "u8", bits = { { "bot", 0x01 }, { "connected", 0x02 } } } },
	[2] = { { "map", "string" }, { "seed", "u64" }, { "frame", "u30" }, { "frame_ms", "u30" },
		{ "lead_frames", "u30" }, { "seats", { list = { { "seat", "seat" } } } },
		{ "flags", "u8", bits = { { "lead_fixed", 0x01 } }, optional = true } },
	[3] = { { "seat", "seat" }, { "id", "u30" }, { "frame", "u30" }, { "kind", "u8", names = command_kinds },
		{ "units", { list = { { "unit", "u30" } } } }, { "x", "i30" }, { "y", "i30" }, { "target", "u30" },
		{ "direct", "u8", bits = direct_seats } },
	[4] = { { "frame", "u30" }, { "id", "u30" }, { "kind", "u8" }, { "x", "i30" }, { "y", "i30" } },
	[5] = { { "frame", "u30" }, { "id", "u30" } },
	[6] = { { "seat", "seat" }, { "line", "u30" }, { "text", "string" } },
	[7] = { { "frame", "u30" }, { "lead_frames", "u30" }, { "flags", "u8", bits = { { "fixed", 0x01 } }, optional = true } },
	[8] = { { "avg_rtt_us", "u30" }, { "min_rtt_us", "u30" }, { "max_rtt_us", "u30" }, { "loss_permille", "u30" } },
	[9] = { { "frame", "u30" }, { "root", "u64" }, { "state_hash", "u64" }, { "inputs", "u32" },
		{ "locator_bit0", "u30" }, { "locator_bit1", "u30" }, { "locator_bit2", "u30" },
		{ "locator_bit3", "u30" }, { "locator_bit4", "u30" }, { "locator_bit5", "u30" } },
	[10] = { { "frame", "u30" }, { "ranges", { list = { { "start", "u30" }, { "end", "u30" } } } },
		{ "hashes", { list = { { "hash", "u64" } } }, optional = true } },
	[11] = { { "frame", "u30" }, { "hashes", { list = id_hash } },
		{ "skipped", { list = { { "start", "u30" }, { "end", "u30" } } }, optional = true } },
	[12] = { { "frame", "u30" }, { "units", { list = "unit" } }, { "removed", { list = { { "id", "u30" } } } },
		{ "seat", "seat" }, { "checked", "u30" }, { "hashes", { list = id_hash } },
		{ "state", "blob", optional = true }, { "state_hash", "u64", with = "state" } },
	[13] = { { "frame", "u30" } },
	[14] = { { "frame", "u30" }, { "hashes", { list = id_hash } }, { "attacks_hash", "u64" } },
	[15] = { { "frame", "u30" }, { "batch", "u30" }, { "units", { list = "unit" } },
		{ "removed", { list = { { "id", "u30" } } } },
		{ "flags", "u8", bits = { { "has_attacks", 0x01 }, { "has_state", 0x02 } } },
		{ "attacks", { list = "attack" }, when = { "flags", 0x01 } },
		{ "state", "blob", when = { "flags", 0x02 } } },
	[16] = { { "frame", "u30" }, { "batch", "u30" } },
	[17] = { { "frame", "u30" }, { "after_ms", "u30" } },
	[18] = { { "frame", "u30" }, { "server_unix_ns", "i64" } },
	[19] = { { "peers", { list = { { "seat", "seat" }, { "family", "u8" }, { "addr", "ipaddr" }, { "port", "u16" },
		{ "key", "bytes32" } } } } },
	[20] = { { "secret", "bytes32" } },
	[21] = { { "nonce", "bytes16" } },
	[22] = { { "mac", "bytes32" } },
	[23] = { { "frame", "u30" }, { "seats", { list = { { "seat", "seat" } } } } },
	[24] = { { "frame", "u30" }, { "round", "u30" }, { "seed", "u64" }, { "seats", { list = { { "seat", "seat" } } } } },
	[25] = { { "loss_permille", "u30" }, { "burst_permille", "u30" }, { "burst_length", "u30" }, { "latency_ms", "u30" },
		{ "jitter_ms", "u30" }, { "dup_permille", "u30" } },
	[26] = { { "number", "u30" }, { "why", "u8", names = spectate_why },
		{ "flags", "u8", bits = { { "chat_off", 0x01 } } }, { "refused", "u30" },
		{ "refused_why", "u8", names = refused_why } },
	[27] = { { "spectator", "u30" }, { "name", "string" }, { "line", "u30" }, { "text", "string" } },
	[28] = { { "seat", "seat" }, { "why", "u8", names = link_lost_why }, { "from", "u30" }, { "to", "u30" } },
}

local unit_layout = {
	{ "id", "u30" }, { "owner", "u8" }, { "kind", "u8" },
	{ "flags", "u8", bits = { { "order", 0x03, unit_orders }, { "dead", 0x04 }, { "has_target_xy", 0x08 },
		{ "has_target_id", 0x10 }, { "has_cooldown", 0x20 }, { "has_move_progress", 0x40 } } },
	{ "x", "i30" }, { "y", "i30" }, { "hp", "i30" },
	{ "target_x", "i30", when = { "flags", 0x08 } }, { "target_y", "i30", when = { "flags", 0x08 } },
	{ "target_id", "u30", when = { "flags", 0x10 } }, { "cooldown", "i30", when = { "flags", 0x20 } },
	{ "move_progress", "i30", when = { "flags", 0x40 } },
}
local attack_layout = {
	{ "id", "u30" }, { "owner", "u8" }, { "from", "u30" }, { "target", "u30" },
	{ "x", "i30" }, { "y", "i30" }, { "damage", "i30" }, { "speed", "i30" },
}

-- The fields of every layout, made once: ackattack.game.<message>.<field>[.<element field>],
-- and ackattack.unit.* and ackattack.attack.* for units and attacks wherever they appear.
local function make_fields(prefix, layout)
	for _, f in ipairs(layout) do
		local name, typ = prefix .. "." .. f[1], f[2]
		local label = f[1]:gsub("_", " ")
		if type(typ) == "table" then
			field(name, "uint32", label .. " (count)")
			if type(typ.list) == "table" then make_fields(name, typ.list) end
		elseif typ == "u8" or typ == "seat" then
			field(name, "uint8", label, base.DEC, f.names)
			for _, bit in ipairs(f.bits or {}) do
				if bit[2] == 0x03 or bit[3] then
					field(name .. "." .. bit[1], "uint8", bit[1]:gsub("_", " "), base.DEC, bit[3], bit[2])
				else
					field(name .. "." .. bit[1], "bool", bit[1]:gsub("_", " "), 8, nil, bit[2])
				end
			end
		elseif typ == "u16" then field(name, "uint16", label)
		elseif typ == "u32" then field(name, "uint32", label, base.HEX)
		elseif typ == "u30" then field(name, "uint32", label)
		elseif typ == "i30" then field(name, "int32", label)
		elseif typ == "u64" then field(name, "uint64", label, base.HEX)
		elseif typ == "i64" then field(name, "int64", label)
		elseif typ == "string" then field(name, "string", label)
		elseif typ == "ipaddr" then field(name, "string", label)
		else field(name, "bytes", label)
		end
	end
end
for t, layout in pairs(layouts) do
	make_fields("game." .. msg_types[t]:lower(), layout)
end
make_fields("unit", unit_layout)
make_fields("attack", attack_layout)

ackattack.fields = {}
for _, f in pairs(F) do table.insert(ackattack.fields, f) end

local ef_malformed = ProtoExpert.new("ackattack.malformed", "Malformed", expert.group.MALFORMED, expert.severity.ERROR)
local ef_nokey = ProtoExpert.new("ackattack.nokey", "Sealed, and no key for this direction in the key file",
	expert.group.DECRYPTION, expert.severity.NOTE)
local ef_dropped = ProtoExpert.new("ackattack.dropped.expert", "Dropped before it reached the other side",
	expert.group.SEQUENCE, expert.severity.WARN)
ackattack.experts = { ef_malformed, ef_nokey, ef_dropped }

----------------------------------------------------------------------------------------------
-- Reading fields. Each reader takes a TvbRange-able tvb and an offset (0-based) and returns the
-- value and the length, or nil when the bytes end early.

local function read_u30(tvb, off)
	if off >= tvb:len() then return nil end
	local b = tvb(off, 1):uint()
	if b < 0x80 then return b, 1 end
	if b < 0xC0 then
		if off + 2 > tvb:len() then return nil end
		return tvb(off, 2):uint() - 0x8000, 2
	end
	if off + 4 > tvb:len() then return nil end
	return tvb(off, 4):uint() - 0xC0000000, 4
end

local function read_i30(tvb, off)
	local v, n = read_u30(tvb, off)
	if v == nil then return nil end
	local bits = ({ [1] = 7, [2] = 14, [4] = 30 })[n]
	local sign = 2 ^ (bits - 1)
	if v >= sign then return -(v - sign), n end
	return v, n
end

local function malformed(tree, tvb, off, what)
	tree:add_proto_expert_info(ef_malformed, what)
	error("malformed", 0)
end

local decode_fields

local function decode_value(tvb, off, tree, name, f, parent)
	local typ = f[2]
	if type(typ) == "table" then
		local count, n = read_u30(tvb, off)
		if count == nil then malformed(tree, tvb, off, name .. ": count cut short") end
		if f.optional and count == 0 then malformed(tree, tvb, off, name .. ": an empty optional list is left out, not sent") end
		local sub = tree:add(F[name], tvb(off, n), count)
		sub:set_text(f[1]:gsub("_", " ") .. ": " .. count)
		off = off + n
		for i = 1, count do
			if off >= tvb:len() then malformed(tree, tvb, off, name .. ": element " .. i .. " missing") end
			local start = off
			local el = sub:add(tvb(off, 0), f[1] .. " [" .. i .. "]")
			if typ.list == "unit" then
				off = decode_fields(tvb, off, el, "unit", unit_layout)
			elseif typ.list == "attack" then
				off = decode_fields(tvb, off, el, "attack", attack_layout)
			else
				off = decode_fields(tvb, off, el, name, typ.list)
			end
			el:set_len(off - start)
		end
		return off, count
	end
	local need = ({ u8 = 1, seat = 1, u16 = 2, u32 = 4, u64 = 8, i64 = 8 })[typ] or tonumber((typ:match("^bytes(%d+)$")))
	if need then
		if off + need > tvb:len() then malformed(tree, tvb, off, name .. ": cut short") end
		local r = tvb(off, need)
		local item = tree:add(F[name], r)
		local v = (need <= 4) and r:uint() or nil
		if f.optional and v == 0 then malformed(tree, tvb, off, name .. ": optional flags with none set are left out, not sent") end
		for _, bit in ipairs(f.bits or {}) do
			item:add(F[name .. "." .. bit[1]], r)
		end
		return off + need, v
	end
	if typ == "u30" or typ == "i30" then
		local v, n = (typ == "u30" and read_u30 or read_i30)(tvb, off)
		if v == nil then malformed(tree, tvb, off, name .. ": cut short") end
		tree:add(F[name], tvb(off, n), v)
		return off + n, v
	end
	if typ == "string" or typ == "blob" then
		local len, n = read_u30(tvb, off)
		if len == nil or off + n + len > tvb:len() then malformed(tree, tvb, off, name .. ": cut short") end
		if typ == "blob" and len == 0 then malformed(tree, tvb, off, name .. ": a state of length 0 (no state is left out)") end
		if len == 0 then
			tree:add(F[name], tvb(off, n), "")
		elseif typ == "string" then
			tree:add(F[name], tvb(off, n + len), tvb(off + n, len):string(ENC_UTF_8))
		else
			tree:add(F[name], tvb(off + n, len))
		end
		return off + n + len, len
	end
	if typ == "ipaddr" then
		local family = parent.family
		local size = (family == 4 and 4) or (family == 6 and 16) or nil
		if not size then malformed(tree, tvb, off, name .. ": address family " .. tostring(family)) end
		if off + size > tvb:len() then malformed(tree, tvb, off, name .. ": cut short") end
		local text = (size == 4) and tostring(tvb(off, 4):ipv4()) or tostring(tvb(off, 16):ipv6())
		tree:add(F[name], tvb(off, size), text)
		return off + size, text
	end
	error("ackattack.lua: unknown field type " .. tostring(typ))
end

decode_fields = function(tvb, off, tree, prefix, layout)
	local seen = {}
	for _, f in ipairs(layout) do
		local skip = (f.when and band(seen[f.when[1]] or 0, f.when[2]) == 0) or (f.optional and off >= tvb:len())
			or (f.with and seen[f.with] == nil)
		if not skip then
			off, seen[f[1]] = decode_value(tvb, off, tree, prefix .. "." .. f[1], f, seen)
		end
	end
	return off, seen
end

-- decode_game decodes one whole game message in tvb; it returns the message's name and a short
-- summary for the Info column.
local function decode_game(tvb, tree)
	if tvb:len() == 0 then
		tree:add_proto_expert_info(ef_malformed, "empty game message")
		return "empty"
	end
	local t = tvb(0, 1):uint()
	local name = msg_types[t]
	local sub = tree:add(F["game.type"], tvb(0, 1))
	if not name then
		sub:add_proto_expert_info(ef_malformed, "unknown game message type " .. t)
		return "MsgType(" .. t .. ")"
	end
	local ok, off, seen = pcall(decode_fields, tvb, 1, tree, "game." .. name:lower(), layouts[t])
	if ok and off ~= tvb:len() then
		tree:add_proto_expert_info(ef_malformed, (tvb:len() - off) .. " bytes after the last field")
	end
	local summary = name
	if ok then
		if name == "Chat" then
			summary = name .. " " .. seen.seat .. ":" .. seen.line
		elseif name == "SpectatorChat" then
			summary = name .. " s" .. seen.spectator .. ":" .. seen.line
		elseif seen.frame then
			summary = name .. "@" .. seen.frame
		end
	end
	return summary
end

----------------------------------------------------------------------------------------------
-- State of one pass over the capture. Wireshark dissects every frame in order once, then again
-- in any order as a user clicks: what depends on earlier frames (the counters, the fragments)
-- is worked out on the first visit and kept by frame number.

local frames = {}      -- frame number -> { plain = string or nil, counter = n, keyed = bool }
local next_counter = {} -- "from>to" .. key index -> the counter after the largest opened
local fragments = {}   -- "from>to#seq" -> { count, total, pieces = {index -> string}, have }
local reassembled = {} -- frame number -> list of { seq = n, data = string }

function ackattack.init()
	frames, next_counter, fragments, reassembled = {}, {}, {}, {}
	load_keys(keys_path())
end

function ackattack.prefs_changed()
	load_keys(keys_path())
end

local function addr_port(addr, port)
	local a = tostring(addr)
	if a:find(":", 1, true) then a = "[" .. a .. "]" end
	return a .. ":" .. port
end

-- open_sealed tries the keys of the datagram's direction: the one logged last before it first,
-- then the others, and keeps the first whose packet type is one a connection carries.
local function open_sealed(raw, dir, at)
	local list = keys_by_dir[dir]
	if not list then return nil end
	local best = 1
	for i, k in ipairs(list) do
		if k.at <= at then best = i end
	end
	local low = raw:byte(1) * 256 + raw:byte(2)
	local ct = raw:sub(3, #raw - 16)
	for j = 0, #list - 1 do
		local i = (best - 1 + j) % #list + 1
		local id = dir .. "#" .. i
		local counter = expand_counter(next_counter[id] or 0, low)
		local plain = chacha20(list[i].key, counter_nonce(counter), ct)
		local t = plain:byte(1)
		if t == 1 or t == 7 or t == 8 or t == 9 then
			next_counter[id] = math.max(next_counter[id] or 0, counter + 1)
			return plain, counter
		end
	end
	return nil
end

----------------------------------------------------------------------------------------------
-- Packets.

local function add_connection_packet(tvb, tree, t)
	local info = packet_types[t]
	local function name_at(off)
		local len = tvb(off, 1):uint()
		tree:add(F["name"], tvb(off, 1 + len), tvb(off + 1, len):string(ENC_UTF_8))
		return off + 1 + len, tvb(off + 1, len):string(ENC_UTF_8)
	end
	if t == 2 or t == 4 then
		tree:add(F["version"], tvb(1, 1))
		tree:add(F["player"], tvb(2, 16))
		local off, name = name_at(18)
		if t == 4 then
			tree:add(F["issued"], tvb(off, 8)); off = off + 8
			tree:add(F["challenge_tag"], tvb(off, 16)); off = off + 16
			tree:add(F["public_key"], tvb(off, 32)); off = off + 32
		end
		-- The role came after the others, where the zero padding was: 0 is a player.
		local role = tvb(off, 1):uint()
		tree:add(F["role"], tvb(off, 1)); off = off + 1
		if off < tvb:len() then tree:add(F["padding"], tvb(off)) end
		info = info .. " " .. name
		if role ~= 0 then info = info .. " (" .. (roles[role] or "?") .. ")" end
	elseif t == 3 then
		tree:add(F["issued"], tvb(1, 8))
		tree:add(F["challenge_tag"], tvb(9, 16))
	elseif t == 5 then
		tree:add(F["public_key"], tvb(1, 32))
	elseif t == 6 then
		tree:add(F["deny_reason"], tvb(1, 1))
		info = info .. " (" .. (deny_reasons[tvb(1, 1):uint()] or "?") .. ")"
	elseif t == 7 then
		tree:add(F["disconnect_reason"], tvb(1, 1))
		local len = tvb(2, 1):uint()
		tree:add(F["text"], tvb(2, 1 + len), tvb(3, len):string(ENC_UTF_8))
		info = info .. " (" .. (disconnect_reasons[tvb(1, 1):uint()] or "?") .. ")"
	elseif t == 8 or t == 9 then
		tree:add(F["ping.id"], tvb(1, 4))
		tree:add(F["ping.t0"], tvb(5, 8))
		if t == 9 then
			tree:add(F["ping.t1"], tvb(13, 8))
			tree:add(F["ping.t2"], tvb(21, 8))
		end
		info = info .. " id=" .. tvb(1, 4):uint()
	end
	return info
end

-- dropped: the frame is on the capture's interface 1, a datagram the other side never got; its
-- fragments are shown but not collected, so a message is reassembled only where the receiver
-- could have put it together.
local function add_data_packet(tvb, tree, pinfo, dir, visited, dropped)
	local flags = tvb(1, 1):uint()
	local ft = tree:add(F["flags"], tvb(1, 1))
	ft:add(F["flags.ack_bytes"], tvb(1, 1))
	ft:add(F["flags.short_ack"], tvb(1, 1))
	ft:add(F["flags.reserved"], tvb(1, 1))
	local seq = tvb(2, 2):uint()
	tree:add(F["seq"], tvb(2, 2))
	local off, ack = 4, nil
	if band(flags, 0x10) ~= 0 then
		local d = tvb(4, 1):uint()
		ack = (seq - d) % 65536
		tree:add(F["ack_distance"], tvb(4, 1))
		tree:add(F["ack"], tvb(4, 1), ack)
		off = 5
	else
		ack = tvb(4, 2):uint()
		tree:add(F["ack"], tvb(4, 2))
		off = 6
	end
	local bits, start = 0, off
	for k = 0, 3 do
		local byte = 0xFF
		if band(flags, shl(1, k)) ~= 0 then
			byte = tvb(off, 1):uint()
			off = off + 1
		end
		bits = bits + byte * 2 ^ (8 * k)
	end
	local bt = tree:add(F["ack_bits"], tvb(start, off - start), bits)
	-- The holes: packets older than Ack, newer than the oldest one reported received. (Bits
	-- past the oldest one received are packets before the first, or too old to matter.)
	local oldest = -1
	for i = 0, 31 do
		if math.floor(bits / 2 ^ i) % 2 == 1 then oldest = i end
	end
	for i = 1, oldest - 1 do
		if math.floor(bits / 2 ^ i) % 2 == 0 then
			bt:add(F["not_acked"], tvb(start, off - start), (ack - i) % 65536)
		end
	end

	local msgs, n = {}, 0
	while off < tvb:len() do
		n = n + 1
		local rstart = off
		local rt = tree:add(F["record"], tvb(off, 1), "")
		local kb = tvb(off, 1):uint()
		local kind = band(kb, 0x03)
		rt:add(F["record.kind"], tvb(off, 1))
		rt:add(F["record.sync"], tvb(off, 1))
		rt:add(F["record.reserved"], tvb(off, 1))
		off = off + 1
		local mseq, deps
		if kind == 2 or kind == 3 then
			deps = {}
			local more = true
			local first = true
			while more do
				local w = tvb(off, 2):uint()
				more = w >= 0x8000
				local v = w % 0x8000
				if first then
					mseq = v
					rt:add(F["msg.seq"], tvb(off, 2), v)
					first = false
				else
					table.insert(deps, v)
					rt:add(F["msg.dep"], tvb(off, 2), v)
				end
				off = off + 2
			end
			rt:add(F["msg.deps"], tvb(rstart, 1), #deps)
		end
		local frag
		if kind == 3 then
			frag = { index = tvb(off, 1):uint(), count = tvb(off + 1, 1):uint() }
			rt:add(F["frag.index"], tvb(off, 1))
			rt:add(F["frag.count"], tvb(off + 1, 1))
			off = off + 2
			local total, tn = read_u30(tvb, off)
			rt:add(F["frag.total"], tvb(off, tn), total)
			frag.total = total
			off = off + tn
		end
		local len, ln = read_u30(tvb, off)
		rt:add(F["length"], tvb(off, ln), len)
		off = off + ln
		local payload = tvb(off, len)
		local label = ""
		if mseq then label = "#" .. mseq end
		if deps and #deps > 0 then label = label .. " after " .. table.concat(deps, ",") end
		if kind == 3 then
			rt:add(F["payload"], payload)
			label = label .. " fragment " .. frag.index .. "/" .. frag.count
			if not visited and not dropped then
				local id = dir .. "#" .. mseq .. "/" .. frag.total
				local fr = fragments[id]
				if not fr then
					fr = { count = frag.count, pieces = {}, have = 0 }
					fragments[id] = fr
				end
				if not fr.pieces[frag.index] then
					fr.pieces[frag.index] = payload:raw()
					fr.have = fr.have + 1
					if fr.have == fr.count then
						local parts = {}
						for i = 0, fr.count - 1 do parts[#parts + 1] = fr.pieces[i] or "" end
						reassembled[pinfo.number] = reassembled[pinfo.number] or {}
						table.insert(reassembled[pinfo.number], { seq = mseq, data = table.concat(parts) })
						fragments[id] = nil
					end
				end
			end
			table.insert(msgs, "frag#" .. mseq .. ":" .. frag.index)
		elseif len > 0 then
			local gt = rt:add(F["payload"], payload)
			local summary = decode_game(payload:tvb(), gt)
			label = (label .. " " .. summary):gsub("^ ", "")
			table.insert(msgs, summary)
		end
		if band(kb, 0x04) ~= 0 then label = label .. " (sync)" end
		rt:set_text(record_kinds[kind] and (record_kinds[kind] .. " " .. label) or ("record kind " .. kind))
		rt:set_len(off + len - rstart)
		off = off + len
	end
	tree:add(F["records"], tvb(0, 1), n)
	for _, r in ipairs(reassembled[pinfo.number] or {}) do
		local rtvb = ByteArray.new(r.data, true):tvb("Reassembled #" .. r.seq)
		local rt = tree:add(rtvb(), "reassembled message #" .. r.seq .. " (" .. rtvb:len() .. " bytes)")
		local summary = decode_game(rtvb, rt)
		table.insert(msgs, summary)
	end
	local info = "Data seq=" .. seq .. " ack=" .. ack
	if #msgs > 0 then info = info .. " [" .. table.concat(msgs, ", ") .. "]" end
	return info
end

----------------------------------------------------------------------------------------------
-- The datagram.

local f_iface = Field.new("frame.interface_id")

function ackattack.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	if len < 5 then return 0 end
	pinfo.cols.protocol = "AckAttack"
	local root = tree:add(ackattack, tvb())
	local dir = addr_port(pinfo.src, pinfo.src_port) .. ">" .. addr_port(pinfo.dst, pinfo.dst_port)
	local prefix = ""
	local iface = f_iface()
	local dropped = iface and iface.value == 1
	if dropped then
		root:add(F["dropped"], tvb(0, 0), true):add_proto_expert_info(ef_dropped)
		prefix = "[dropped] "
	end

	local raw = tvb:raw()
	local st = frames[pinfo.number]
	if not st then
		st = {}
		local sum = tvb(0, 4):uint()
		if sum == plain_checksum(raw) then
			st.plain = raw:sub(5)
		elseif len >= 19 then
			st.sealed = true
			st.plain, st.counter = open_sealed(raw, dir, pinfo.abs_ts)
		end
		frames[pinfo.number] = st
	end

	local ptvb
	if not st.sealed then
		if not st.plain then return 0 end
		root:add(F["frame"], tvb(0, 4), "plain (handshake)")
		root:add(F["checksum"], tvb(0, 4))
		root:add(F["checksum_good"], tvb(0, 4), true)
		ptvb = tvb(4):tvb()
	else
		root:add(F["frame"], tvb(0, 2), "sealed (ChaCha20-Poly1305)")
		root:add(F["counter16"], tvb(0, 2))
		root:add(F["ciphertext"], tvb(2, len - 18))
		root:add(F["tag"], tvb(len - 16, 16))
		if not st.plain then
			root:add(F["opened"], tvb(0, 0), false):add_proto_expert_info(ef_nokey)
			pinfo.cols.info = prefix .. "Sealed, counter " .. tvb(0, 2):uint() .. " (no key)"
			return len
		end
		root:add(F["counter"], tvb(0, 2), UInt64.new(st.counter % TWO32, math.floor(st.counter / TWO32)))
		root:add(F["opened"], tvb(0, 0), true)
		ptvb = ByteArray.new(st.plain, true):tvb("Opened packet")
	end

	local t = ptvb(0, 1):uint()
	local pt = root:add(F["type"], ptvb(0, 1))
	local ok, info = pcall(function()
		if t == 1 then
			return add_data_packet(ptvb, root, pinfo, dir, pinfo.visited, dropped)
		elseif packet_types[t] then
			return add_connection_packet(ptvb, root, t)
		end
		pt:add_proto_expert_info(ef_malformed, "unknown packet type " .. t)
		return "packet type " .. t
	end)
	if not ok then
		if info ~= "malformed" then
			root:add_proto_expert_info(ef_malformed, tostring(info))
		end
		info = (packet_types[t] or "?") .. " (malformed)"
	end
	pinfo.cols.info = prefix .. info
	return len
end

-- A datagram is ours if its plain frame's checksum is right, or if the key file has keys for
-- its direction; on the server's port it is ours anyway.
local function heuristic(tvb, pinfo, tree)
	if tvb:len() < 5 then return false end
	local dir = addr_port(pinfo.src, pinfo.src_port) .. ">" .. addr_port(pinfo.dst, pinfo.dst_port)
	if keys_by_dir[dir] == nil and tvb(0, 4):uint() ~= plain_checksum(tvb:raw()) then
		return false
	end
	ackattack.dissector(tvb, pinfo, tree)
	return true
end

ackattack:register_heuristic("udp", heuristic)
DissectorTable.get("udp.port"):add(ackattack.prefs.port, ackattack)
