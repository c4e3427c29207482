# Key material for the suites that make DEKs and log in (dek, nonblocking,
# persistence): what a key file must be, and AES-KW by OpenSSL, not by rdmad.

# key FILE BYTES: random key material, root-owned, mode 0600.
key() {
	head -c "$2" /dev/urandom >"$1"
	chmod 0600 "$1"
}

# wrap KEK IN OUT: AES-KW (RFC 3394, default IV) of IN under the KEK file, by OpenSSL.
wrap() {
	local bits=$(($(stat -c %s "$1") * 8))
	openssl enc -id-aes$bits-wrap -iv A6A6A6A6A6A6A6A6 -K "$(xxd -p -c 256 "$1")" -in "$2" -out "$3"
	chmod 0600 "$3"
}

# login_keys DIR: DIR/kek and DIR/credential, and DIR/login, the credential
# wrapped under the KEK: what a crypto login needs (rdmad.conf's
# crypto_credential and import_kek.NAME, then dek login with DIR/login).
login_keys() {
	mkdir -p "$1"
	key "$1/kek" 32
	key "$1/credential" 40
	wrap "$1/kek" "$1/credential" "$1/login"
}
