// The category node — {id, title, image_url?, children?} and nothing else — and the mapping of the
// home-goods upstream's records onto it.
import { type Static, Type } from "@sinclair/typebox";

export const CategoryNode = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        id: Type.String({ description: "Category identifier." }),
        title: Type.String({ description: "Category title." }),
        image_url: Type.Optional(Type.String({ description: "Present when the image is exposed." })),
        children: Type.Optional(Type.Array(Self, { description: "Nested child categories (recursive)." })),
      },
      { additionalProperties: false },
    ),
  { $id: "CategoryNode", title: "CategoryNode" },
);

export type CategoryNodeValue = Static<typeof CategoryNode>;

export function node(id: string, title: string, imageUrl: string | null | undefined, children?: CategoryNodeValue[]) {
  const result: CategoryNodeValue = { id, title };
  if (imageUrl) result.image_url = imageUrl;
  if (children !== undefined) result.children = children;
  return result;
}

export interface UpstreamCategory {
  categoryCode: string;
  categoryName: string;
  imageUrl: string | null;
  hasSubCategories?: boolean;
  subCategories?: UpstreamCategory[];
}

/**
 * A category and the sub-categories the answer expanded. One past the depth asked for, that has sub-categories, has
 * no `children` (not expanded); `children: []` says a category has none.
 */
export const categoryNode = (c: UpstreamCategory): CategoryNodeValue => {
  const notExpanded = c.hasSubCategories === true && (c.subCategories?.length ?? 0) === 0;
  return node(c.categoryCode, c.categoryName, c.imageUrl, notExpanded ? undefined : c.subCategories?.map(categoryNode));
};

export interface UpstreamProductSummary {
  productCode: string;
  productName: string;
  imageUrl: string | null;
}

export const productNode = (p: UpstreamProductSummary): CategoryNodeValue =>
  node(p.productCode, p.productName, p.imageUrl);
