"""git: see README "Where things live". Imports nothing."""
