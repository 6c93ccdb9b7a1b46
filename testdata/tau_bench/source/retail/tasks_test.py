# A hand-made fixture in the format of upstream's task modules.
from tau_bench.types import Task, Action

TASKS_TEST = [
    Task(
        annotator="fixture",
        user_id="cara_diaz_3003",
        instruction="You are Cara Diaz, zip 78701. Swap the black lamp of #W0000001 for the white one, paying with your gift card, and ask what it cost.",
        actions=[
            Action(name="find_user_id_by_email", kwargs={"email": "cara.diaz@EXAMPLE.com"}),
            Action(name="find_user_id_by_name_zip", kwargs={"first_name": "cara", "last_name": "DIAZ", "zip": "78701"}),
            Action(name="find_user_id_by_email", kwargs={"email": "nobody@example.com"}),
            Action(name="list_all_product_types", kwargs={}),
            Action(name="get_product_details", kwargs={"product_id": "1000000001"}),
            Action(
                name="modify_pending_order_items",
                kwargs={
                    "order_id": "#W0000001",
                    "item_ids": ["2000000001"],
                    "new_item_ids": ["2000000002"],
                    "payment_method_id": "gift_card_5555555",
                },
            ),
            Action(name="modify_pending_order_payment", kwargs={"order_id": "#W0000001", "payment_method_id": "paypal_6666666"}),
        ],
        outputs=["52.03"],
    ),
    Task(
        annotator="fixture",
        user_id="cara_diaz_3003",
        instruction="You are Cara Diaz. Cancel #W0000001, pay #W0000003 by gift card instead, and move to a new address.",
        actions=[
            Action(name="cancel_pending_order", kwargs={"order_id": "#W0000001", "reason": "changed my mind"}),
            Action(name="cancel_pending_order", kwargs={"order_id": "#W0000001", "reason": "no longer needed"}),
            Action(name="modify_pending_order_payment", kwargs={"order_id": "#W0000003", "payment_method_id": "gift_card_5555555"}),
            Action(
                name="modify_pending_order_address",
                kwargs={"order_id": "#W0000003", "address1": "8 Birch Court", "address2": "", "city": "Dallas", "state": "TX", "country": "USA", "zip": "75201"},
            ),
            Action(
                name="modify_user_address",
                kwargs={"user_id": "cara_diaz_3003", "address1": "8 Birch Court", "address2": "", "city": "Dallas", "state": "TX", "country": "USA", "zip": "75201"},
            ),
            Action(name="get_order_details", kwargs={"order_id": "W0000003"}),
        ],
        outputs=[],
    ),
    Task(
        annotator="fixture",
        user_id="cara_diaz_3003",
        instruction="You are Cara Diaz. Exchange one black lamp of #W0000002 for the white one.",
        actions=[
            Action(
                name="exchange_delivered_order_items",
                kwargs={
                    "order_id": "#W0000002",
                    "item_ids": ["2000000001", "2000000001"],
                    "new_item_ids": ["2000000002", "2000000003"],
                    "payment_method_id": "paypal_6666666",
                },
            ),
            Action(
                name="exchange_delivered_order_items",
                kwargs={
                    "order_id": "#W0000002",
                    "item_ids": ["2000000001"],
                    "new_item_ids": ["2000000002"],
                    "payment_method_id": "paypal_6666666",
                },
            ),
            Action(name="calculate", kwargs={"expression": "88.02 - 35.99"}),
            Action(name="calculate", kwargs={"expression": "1 / 0"}),
        ],
        outputs=["52.03"],
    ),
    Task(
        annotator="fixture",
        user_id="cara_diaz_3003",
        instruction="You are Cara Diaz. Return both lamps of #W0000002 to your PayPal account.",
        actions=[
            Action(
                name="return_delivered_order_items",
                kwargs={"order_id": "#W0000002", "item_ids": ["2000000001"], "payment_method_id": "credit_card_7777777"},
            ),
            Action(
                name="return_delivered_order_items",
                kwargs={"order_id": "#W0000002", "item_ids": ["2000000001", "2000000001", "2000000001"], "payment_method_id": "paypal_6666666"},
            ),
            Action(
                name="return_delivered_order_items",
                kwargs={"order_id": "#W0000002", "item_ids": ["2000000001", "2000000001"], "payment_method_id": "paypal_6666666"},
            ),
        ],
        outputs=[],
    ),
]
