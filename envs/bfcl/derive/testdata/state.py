from copy import deepcopy
import random
from typing import Dict

DEFAULT_STATE = {
    "counter": 0,
    "ids": set(),
    "orders": {12: {"id": 12, "price": 9.5}, 7: {"id": 7, "price": 10.0}},
}


class Node:
    def __init__(self, name: str, parent=None):
        self.name: str = name
        self.parent = parent
        self.children: Dict[str, "Node"] = {}


class Store:
    def __init__(self):
        self.counter: int
        self._api = "private"

    def _load_scenario(self, scenario: dict, long_context=False):
        state = deepcopy(DEFAULT_STATE)
        self._random = random.Random(scenario.get("seed", 1))
        self.long_context = long_context
        self.counter = scenario.get("counter", state["counter"])
        self.ids = scenario.get("ids", set([3, 1, 2]))
        self.orders = {
            int(k) if isinstance(k, str) and k.isdigit() else k: v
            for k, v in scenario.get("orders", state["orders"]).items()
        }
        self.dear = len([1 for o in self.orders.values() if o["price"] > 9.75]) == 1
        root = Node("/")
        root.children["a"] = Node("a", root)
        self.root = root
        if "extra" in scenario:
            self.extra = True
        self.counter += 2
