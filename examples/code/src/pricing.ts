export type Discount = { kind: 'percent'; value: number } | { kind: 'fixed'; value: number };

export function priceWithDiscount(total: number, discount?: Discount): number {
  if (!discount) return round(total);
  if (discount.kind === 'percent' && discount.value > 0 && discount.value <= 100) {
    return round(total * (1 - discount.value / 100));
  }
  if (discount.kind === 'fixed' && discount.value > 0) {
    return round(Math.max(0, total - discount.value));
  }
  return round(total);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
