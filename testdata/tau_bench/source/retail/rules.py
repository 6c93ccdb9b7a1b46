# A hand-made fixture in the format of upstream's rules.py.

RULES = [
    "Confirm the user's identity before any change.",
    'Ask for an explicit "yes" before writing to the database.',
]
