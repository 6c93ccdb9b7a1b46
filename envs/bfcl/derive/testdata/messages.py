class Shop:
    def __init__(self):
        self._items = {}

    def _private(self):
        return {"error": "never listed"}

    def buy(self, item: str, count: int = 1):
        """The docstring is not a message."""
        if item not in self._items:
            return {"error": f"Item '{item}' not found.", "ok": False}
        try:
            if count <= 0:
                return {"error": "Count must be positive."}
        except TypeError as e:
            return {"error": "Count must be a number: " + str(e)}
        status = {}
        status["result"] = "Bought " + item + "."
        return {"result": "Bought " + item + ".", "count": count}

    def list_items(self):
        if not self._items:
            return [{"error": "Nothing " 'in stock.'}]
        return ["first", f"{self.owner} owns {len(self._items):>3} items"]

    def close(self):
        raise ValueError(f"Shop {self.name!r} is closed.")

    def note(self):
        return "a bare " f"{1 + 2}"

    def nothing(self):
        self.log.append({"event": "not a result"})
        return {"count": 3, "flag": True, "msg": str(3)}
