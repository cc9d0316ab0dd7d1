"""Teaching the detector a deck: `teach.py` fits a deck profile on the shipped
namer's features; `photos.py` finds the taught corners in a folder of photos named after their
cards. The profile is read at run time by `vision.inference.deck`."""
