"""Suggest restock orders from a CSV export of the inventory."""
import csv
import sys

REORDER_POINT = 10


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def suggest(rows, reorder_point=REORDER_POINT):
    orders = []
    for row in rows:
        quantity = int(row["quantity"])
        if quantity < reorder_point and row.get("discontinued") != "yes":
            orders.append((row["sku"], reorder_point * 2 - quantity))
    return orders


if __name__ == "__main__":
    # TODO: read the reorder point from the command line.
    for sku, amount in suggest(read_rows(sys.argv[1])):
        print(f"{sku}\t{amount}")
