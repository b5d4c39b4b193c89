"""Identities: deterministic Ed25519 from seeds, fingerprints, names, the key file (SPEC.md 4)."""

from __future__ import annotations

import os
import stat

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from santorini_p2p.errors import IdentityError
from santorini_p2p.wire.identity import (
    KEY_FILE,
    Identity,
    check_name,
    count_verified,
    fingerprint,
    home_dir,
    load_identity,
    load_or_create_identity,
    save_name,
    verify,
)

# RFC 8032 section 7.1, TEST 1 (empty message).
RFC_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIG = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bac"
    "c61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)


def test_identity_from_seed_matches_rfc8032():
    me = Identity.from_seed(RFC_SEED, "rfc")
    assert me.public_key == RFC_PUBLIC
    assert me.sign(b"") == RFC_SIG
    assert verify(RFC_PUBLIC, RFC_SIG, b"")


def test_verify_is_false_for_bad_input_and_never_raises():
    assert not verify(RFC_PUBLIC, RFC_SIG, b"x")
    assert not verify(RFC_PUBLIC, RFC_SIG[:-1], b"")
    assert not verify(RFC_PUBLIC[:31], RFC_SIG, b"")
    assert not verify(b"\xff" * 32, RFC_SIG, b"")
    bad = bytearray(RFC_SIG)
    bad[63] ^= 0x80
    assert not verify(RFC_PUBLIC, bytes(bad), b"")


def test_count_verified_counts_the_leading_good_signatures_like_verify():
    a, b = Identity.from_seed(b"\x01" * 32, "a"), Identity.from_seed(b"\x02" * 32, "b")
    good = [(k.public_key, k.sign(m), m) for k in (a, b, a) for m in (b"one", b"two")]
    assert count_verified(good) == 6
    assert count_verified([]) == 0
    bad = bytearray(RFC_SIG)
    bad[63] ^= 0x80
    # Each kind of failure verify reports as False stops the count where it is.
    for broken in [
        (RFC_PUBLIC, RFC_SIG, b"x"),
        (RFC_PUBLIC, bytes(bad), b""),
        (RFC_PUBLIC, RFC_SIG[:-1], b""),
        (RFC_PUBLIC[:31], RFC_SIG, b""),
        (b"\xff" * 32, RFC_SIG, b""),
        (b.public_key, a.sign(b"one"), b"one"),
    ]:
        assert not verify(*broken)
        assert count_verified([*good[:4], broken, *good[4:]]) == 4


def test_verify_takes_any_bytes_like_value():
    a = Identity.from_seed(b"\x01" * 32, "a")
    sig = a.sign(b"one")
    for wrap in (bytearray, memoryview):
        args = (wrap(a.public_key), wrap(sig), wrap(b"one"))
        assert verify(*args)
        assert count_verified([args]) == 1


def _openssl(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """OpenSSL's verdict, the one ``verify`` has always given (protocol/SPEC.md 4)."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


# The identity point as a public key and as R, with S = 0: [0]B = R + [k]A holds for every
# message. OpenSSL accepts it; libsodium refuses small-order keys. Then its non-canonical
# encoding (y = p + 1), and a point of order 2 (y = -1).
IDENTITY = b"\x01" + b"\x00" * 31
EDGE_KEYS = [IDENTITY, b"\xee" + b"\xff" * 30 + b"\x7f", b"\xec" + b"\xff" * 30 + b"\x7f"]


def test_verdicts_stay_openssls_where_libsodium_is_stricter():
    forged = IDENTITY + b"\x00" * 32
    with pytest.raises(BadSignatureError):
        crypto_sign_open(forged + b"any", IDENTITY)  # libsodium alone would refuse it
    assert _openssl(IDENTITY, forged, b"any")
    assert verify(IDENTITY, forged, b"any")
    assert count_verified([(IDENTITY, forged, b"any"), (IDENTITY, forged, b"more")]) == 2
    for key in EDGE_KEYS:
        for r in EDGE_KEYS:
            for message in (b"", b"any", b"more"):
                sig = r + b"\x00" * 32
                assert verify(key, sig, message) == _openssl(key, sig, message)
                assert count_verified([(key, sig, message)]) == int(_openssl(key, sig, message))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=64),
    part=st.sampled_from(["key", "signature", "message", "none"]),
    bit=st.integers(0, 511),
)
def test_verify_agrees_with_openssl_on_altered_signatures(seed, message, part, bit):
    me = Identity.from_seed(seed, "me")
    key, sig = bytearray(me.public_key), bytearray(me.sign(message))
    data = bytearray(message)
    target = {"key": key, "signature": sig, "message": data}.get(part)
    if target is not None and not target:
        target.append(bit % 256)  # an empty message altered: one byte more
    elif target is not None:
        target[bit // 8 % len(target)] ^= 1 << bit % 8
    args = (bytes(key), bytes(sig), bytes(data))
    assert verify(*args) == _openssl(*args)
    assert verify(*args) == (part == "none")
    assert count_verified([args, args]) == (2 if part == "none" else 0)


def test_fingerprint_is_four_groups_of_blake2b_hex():
    fp = fingerprint(RFC_PUBLIC)
    assert len(fp) == 19
    assert fp.count("-") == 3
    import hashlib

    assert fp.replace("-", "") == hashlib.blake2b(RFC_PUBLIC, digest_size=32).hexdigest()[:16]


@pytest.mark.parametrize("name", ["a", "Zoë", "x" * 64, "two words", "王"])
def test_valid_names(name):
    assert check_name(name) == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "bytes"),
        ("x" * 65, "bytes"),
        ("王" * 22, "bytes"),
        (" lead", "spaces"),
        ("trail ", "spaces"),
        ("tab\there", "printable"),
        ("new\nline", "printable"),
        ("zero\u200bwidth", "printable"),
    ],
)
def test_invalid_names_say_why(name, why):
    with pytest.raises(ValueError, match=why):
        check_name(name)


def test_seed_must_be_32_bytes():
    with pytest.raises(ValueError, match="32 bytes"):
        Identity.from_seed(b"short", "x")


def test_home_dir_honours_santorini_home(monkeypatch, tmp_path):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert home_dir() == tmp_path
    monkeypatch.delenv("SANTORINI_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert home_dir() == tmp_path / "xdg" / "santorini-p2p"


def test_a_home_that_is_a_file_is_named_in_the_error(tmp_path):
    home = tmp_path / "home"
    home.write_text("not a directory")
    with pytest.raises(IdentityError, match=r"home: not a directory \(set SANTORINI_HOME"):
        load_or_create_identity(home)


def test_key_is_created_once_with_mode_0600(tmp_path):
    home = tmp_path / "home"
    me = load_or_create_identity(home, name="alice")
    path = home / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_identity(home, name="ignored")
    assert again.public_key == me.public_key
    assert again.name == "alice"
    assert load_identity(home).seed == me.seed


def test_default_names_differ_between_homes_on_one_machine(tmp_path):
    # Two players on one login must not both be called by the login name: a game
    # refuses a display name taken twice.
    a = load_or_create_identity(tmp_path / "a")
    b = load_or_create_identity(tmp_path / "b")
    assert a.name.endswith("-" + a.fingerprint[:4])
    assert b.name.endswith("-" + b.fingerprint[:4])
    assert a.name != b.name
    assert load_identity(tmp_path / "a").name == a.name


def test_save_name_keeps_the_key(tmp_path):
    me = load_or_create_identity(tmp_path, name="alice")
    renamed = save_name("Alice B", tmp_path)
    assert renamed.name == "Alice B"
    assert renamed.public_key == me.public_key
    with pytest.raises(IdentityError, match="spaces"):
        save_name(" x", tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_a_key_file_readable_by_others_is_refused(tmp_path):
    load_or_create_identity(tmp_path, name="alice")
    (tmp_path / KEY_FILE).chmod(0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_identity(tmp_path)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("hello\n", ":1:"),
        ("santorini-p2p identity 1\nseed zz\nname a\n", ":2:"),
        ("santorini-p2p identity 1\nseed 00\nname a\n", ":2:"),
        ("santorini-p2p identity 1\nseed " + "00" * 32 + "\nnom a\n", ":3:"),
        ("santorini-p2p identity 1\nseed " + "00" * 32 + "\nname \n", ":3:"),
    ],
)
def test_malformed_key_files_name_the_line(tmp_path, text, where):
    path = tmp_path / KEY_FILE
    path.write_text(text)
    path.chmod(0o600)
    with pytest.raises(IdentityError, match=where):
        load_identity(tmp_path)


def test_missing_key_file(tmp_path):
    with pytest.raises(IdentityError, match="no identity"):
        load_identity(tmp_path)
