"""The computer opponent."""
