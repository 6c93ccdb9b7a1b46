# A hand-made fixture in the format of upstream's task modules.
from tau_bench.types import Action, Task

TASKS = [
    Task(
        annotator="fixture",
        user_id="ana_ortiz_1001",
        instruction="You are Ana Ortiz (ana_ortiz_1001). Book a one-way economy trip "
        "from New York to Seattle on May 20 with a stop in Atlanta, with insurance and one paid bag. "
        'Pay with your certificate, then $200 from your gift card, the rest by card. You want to know the total.',
        actions=[
            Action(name="get_user_details", kwargs={"user_id": "ana_ortiz_1001"}),
            Action(
                name="book_reservation",
                kwargs={
                    "user_id": "ana_ortiz_1001",
                    "origin": "JFK",
                    "destination": "SEA",
                    "flight_type": "one_way",
                    "cabin": "economy",
                    "flights": [
                        {"flight_number": "HAT001", "date": "2024-05-20"},
                        {"flight_number": "HAT002", "date": "2024-05-20"},
                    ],
                    "passengers": [{"first_name": "Ana", "last_name": "Ortiz", "dob": "1985-02-03"}],
                    "payment_methods": [
                        {"payment_id": "certificate_3333333", "amount": 100},
                        {"payment_id": "gift_card_2222222", "amount": 200},
                        {"payment_id": "credit_card_1111111", "amount": 30},
                    ],
                    "total_baggages": 2,
                    "nonfree_baggages": 1,
                    "insurance": "yes",
                },
            ),
        ],
        outputs=["330"],
    ),
    Task(
        annotator="fixture",
        user_id="ana_ortiz_1001",
        instruction="You are Ana Ortiz. Move reservation ABC123 to business, or else to the direct evening flight; add two paid bags; then cancel it.",
        actions=[
            Action(name="search_direct_flight", kwargs={"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}),
            Action(name="search_onestop_flight", kwargs={"origin": "JFK", "destination": "BOS", "date": "2024-05-20"}),
            Action(name="list_all_airports", kwargs={}),
            Action(name="calculate", kwargs={"expression": "2 * (120 + 130) // 3"}),
            Action(name="think", kwargs={"thought": "Business has no seat on HAT001."}),
            Action(
                name="update_reservation_flights",
                kwargs={
                    "reservation_id": "ABC123",
                    "cabin": "business",
                    "flights": [
                        {"flight_number": "HAT001", "date": "2024-05-20"},
                        {"flight_number": "HAT002", "date": "2024-05-20"},
                    ],
                    "payment_id": "credit_card_1111111",
                },
            ),
            Action(
                name="update_reservation_flights",
                kwargs={
                    "reservation_id": "ABC123",
                    "cabin": "economy",
                    "flights": [{"flight_number": "HAT003", "date": "2024-05-20"}],
                    "payment_id": "gift_card_2222222",
                },
            ),
            Action(
                name="update_reservation_baggages",
                kwargs={"reservation_id": "ABC123", "total_baggages": 3, "nonfree_baggages": 2, "payment_id": "credit_card_1111111"},
            ),
            Action(
                name="update_reservation_passengers",
                kwargs={"reservation_id": "ABC123", "passengers": []},
            ),
            Action(name="cancel_reservation", kwargs={"reservation_id": "ABC123"}),
        ],
        outputs=[],
    ),
    Task(
        annotator="fixture",
        user_id="ben_wu_2002",
        instruction="You are Ben Wu. You want compensation for a delay, and then a human agent.",
        actions=[
            Action(name="send_certificate", kwargs={"user_id": "ben_wu_2002", "amount": 50.0}),
            Action(name="get_user_details", kwargs={}),
            Action(name="get_user_details", kwargs={"user_id": "ben_wu_2002", "verbose": True}),
            Action(name="get_reservation_details", kwargs={"reservation_id": "ZZZ999"}),
            Action(name="fly_plane", kwargs={"to": "SEA"}),
            Action(
                name="book_reservation",
                kwargs={
                    "user_id": "ben_wu_2002",
                    "origin": "JFK",
                    "destination": "SEA",
                    "flight_type": "one_way",
                    "cabin": "first",
                    "flights": [{"flight_number": "HAT003", "date": "2024-05-20"}],
                    "passengers": [{"first_name": "Ben", "last_name": "Wu", "dob": "1990-11-30"}],
                    "payment_methods": [{"payment_id": "credit_card_4444444", "amount": 290}],
                    "total_baggages": 0,
                    "nonfree_baggages": 0,
                    "insurance": "no",
                },
            ),
            Action(name="calculate", kwargs={"expression": "(1 + 2"}),
            Action(name="transfer_to_human_agents", kwargs={"summary": "Ben wants a human agent."}),
        ],
        outputs=[],
    ),
]
