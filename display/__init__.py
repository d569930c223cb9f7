"""What the progressive sign shows, rendered to an image: pure code, no device access.
Imports nothing else of ours."""
