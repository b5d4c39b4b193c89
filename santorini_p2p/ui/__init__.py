"""The console client (prompt_toolkit) and the pure board renderers it uses."""
