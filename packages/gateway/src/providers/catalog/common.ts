// Building blocks shared by the catalog's product operations.
import { Type } from "@sinclair/typebox";
import { type PageWindow, pageWindow } from "../paging.ts";
import { IdString, JsonValue, PatternString } from "../schemas.ts";
import { yen } from "./mapping.ts";

export const ProductId = IdString("Product id, e.g. cat-prd-0001.");
export const CategoryId = PatternString("^[0-9]{1,6}$", "must be 1 to 6 digits", {
  description: "Category id, e.g. 101; 0 is the root.",
});
export const Output = Type.Ref(JsonValue);
export const page = (input: { cursor?: string | undefined; limit?: number | undefined }) =>
  pageWindow(input.cursor, input.limit ?? 20);
/** The catalog's names of a page window's number and size. */
export const pageQuery = ({ page, size }: PageWindow) => ({ page, hits: size });
export const exampleProduct = {
  id: "cat-prd-0001",
  title: "新潟県産 コシヒカリ 令和6年産 5kg",
  price: yen(4480),
  in_stock: true,
};
