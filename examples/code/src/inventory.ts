// In-memory inventory with reservations; the pricing rules live in pricing.ts.
import { priceWithDiscount, type Discount } from './pricing.js';

export interface Item {
  sku: string;
  name: string;
  unitPrice: number;
  quantity: number;
}

export class Inventory {
  private readonly items = new Map<string, Item>();
  private readonly reserved = new Map<string, number>();

  add(item: Item): void {
    const existing = this.items.get(item.sku);
    if (existing) {
      existing.quantity += item.quantity;
      return;
    }
    this.items.set(item.sku, { ...item });
  }

  available(sku: string): number {
    const item = this.items.get(sku);
    if (!item) return 0;
    return item.quantity - (this.reserved.get(sku) ?? 0);
  }

  reserve(sku: string, quantity: number): boolean {
    if (quantity <= 0 || this.available(sku) < quantity) return false;
    this.reserved.set(sku, (this.reserved.get(sku) ?? 0) + quantity);
    return true;
  }

  quote(sku: string, quantity: number, discount?: Discount): number {
    const item = this.items.get(sku);
    if (!item) throw new Error(`Unknown SKU: ${sku}`);
    // TODO: quotes ignore reservations made by other customers.
    return priceWithDiscount(item.unitPrice * quantity, discount);
  }
}
