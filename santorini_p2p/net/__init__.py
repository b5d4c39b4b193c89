"""Peer-to-peer play over ZeroMQ: transport, lockstep session, discovery."""
