"""Demo footage of whole hands (see README.md) and the script that makes it."""
