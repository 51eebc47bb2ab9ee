// The shop's per-member state (carts and watch lists, in memory) and its native JSON shapes: snake_case with
// `_jpy` integer amounts, cart "lines" with line numbers, watch list "entries".
import { notFound, SandboxError } from "../shared/errors.ts";
import { OFFLINE_SKU, type PriceClock, priceAt, type ShopProduct } from "./catalog.ts";

export const MAX_LINE_QTY = 99;
export const MAX_WATCHES = 50;

export interface WatchEntry {
  targetPriceJpy: number | null;
  registeredAt: number;
}

export class Shop {
  private readonly carts = new Map<string, Map<string, number>>();
  private readonly watches = new Map<string, Map<string, WatchEntry>>();

  constructor(
    readonly products: Map<string, ShopProduct>,
    readonly prices: PriceClock,
    readonly now: () => number,
  ) {}

  /** The product, or the site's answers for the offline fixture (503) and unknown codes (404). */
  product(sku: string): ShopProduct {
    if (sku === OFFLINE_SKU) throw new SandboxError(503, "internal", "The item service is temporarily unavailable");
    const product = this.products.get(sku);
    if (!product) throw notFound(`Item ${sku} does not exist`);
    return product;
  }

  price(product: ShopProduct): number {
    return priceAt(product, this.prices, this.now());
  }

  itemView(product: ShopProduct) {
    const sale = this.price(product);
    return {
      ...product,
      sale_price_jpy: sale,
      on_sale: sale < product.list_price_jpy,
      price_as_of: new Date(this.now()).toISOString(),
    };
  }

  cartOf(memberId: string): Map<string, number> {
    const cart = this.carts.get(memberId) ?? new Map<string, number>();
    this.carts.set(memberId, cart);
    return cart;
  }

  cartView(memberId: string) {
    const lines = [...this.cartOf(memberId)].map(([sku, qty], index) => {
      const product = this.product(sku);
      const unit = this.price(product);
      return {
        line_no: index + 1,
        sku,
        item_name: product.item_name,
        qty,
        unit_price_jpy: unit,
        line_total_jpy: unit * qty,
      };
    });
    return {
      cart: {
        member_id: memberId,
        lines,
        line_count: lines.length,
        piece_count: lines.reduce((sum, l) => sum + l.qty, 0),
        subtotal_jpy: lines.reduce((sum, l) => sum + l.line_total_jpy, 0),
        updated_at: new Date(this.now()).toISOString(),
      },
    };
  }

  addLine(memberId: string, sku: string, qty: number): void {
    this.product(sku);
    const cart = this.cartOf(memberId);
    const total = (cart.get(sku) ?? 0) + qty;
    if (total > MAX_LINE_QTY) {
      throw new SandboxError(
        422,
        "bad_request",
        `At most ${MAX_LINE_QTY} of one item fit in a cart (would be ${total})`,
      );
    }
    cart.set(sku, total);
  }

  watchesOf(memberId: string): Map<string, WatchEntry> {
    const list = this.watches.get(memberId) ?? new Map<string, WatchEntry>();
    this.watches.set(memberId, list);
    return list;
  }

  watchView(sku: string, entry: WatchEntry) {
    const product = this.product(sku);
    return {
      sku,
      item_name: product.item_name,
      target_price_jpy: entry.targetPriceJpy,
      current_price_jpy: this.price(product),
      registered_at: new Date(entry.registeredAt).toISOString(),
    };
  }

  watch(memberId: string, sku: string, targetPriceJpy: number | null): { created: boolean; entry: WatchEntry } {
    this.product(sku);
    const list = this.watchesOf(memberId);
    const existing = list.get(sku);
    if (!existing && list.size >= MAX_WATCHES) {
      throw new SandboxError(422, "bad_request", `A watch list holds at most ${MAX_WATCHES} items`);
    }
    const entry = { targetPriceJpy, registeredAt: existing?.registeredAt ?? this.now() };
    list.set(sku, entry);
    return { created: !existing, entry };
  }
}
