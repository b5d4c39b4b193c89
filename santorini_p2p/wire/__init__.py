"""Canonical msgpack codec, message types, identities and the signed hash-chained log."""
