"""streamproof's IR layer: the Stream-style IR, its text forms, analyses and passes."""
