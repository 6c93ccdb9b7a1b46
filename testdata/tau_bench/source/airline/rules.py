# A hand-made fixture in the format of upstream's rules.py.

RULES = []
