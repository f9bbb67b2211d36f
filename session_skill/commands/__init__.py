"""commands: see README "Where things live". Imports nothing."""
