/** The shape every list of the API shares. */
export interface ListBody<Item> {
  data: Item[];
  has_more: boolean;
}

/** One page: the list body as the API returned it, plus helpers to walk the next pages. */
export type Page<L extends ListBody<unknown>> = L & {
  hasNextPage(): boolean;
  /** The next page (throws when `has_more` is false). */
  getNextPage(): Promise<Page<L>>;
};

type ItemOf<L> = L extends ListBody<infer I> ? I : never;

/**
 * The result of a `list` call: `await` it for the first page, or iterate it with `for await` for every item of every
 * page (the SDK follows `starting_after` with the last item's cursor while `has_more` is true).
 */
export class PagePromise<L extends ListBody<unknown>> implements PromiseLike<Page<L>>, AsyncIterable<ItemOf<L>> {
  #fetchPage: (cursor: string | undefined) => Promise<L>;
  #cursorOf: (item: ItemOf<L>) => string;
  #first: Promise<Page<L>> | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<L>, cursorOf: (item: ItemOf<L>) => string, start?: string) {
    this.#fetchPage = fetchPage;
    this.#cursorOf = cursorOf;
    this.#start = start;
  }
  #start: string | undefined;

  #load(cursor: string | undefined): Promise<Page<L>> {
    return this.#fetchPage(cursor).then((body) => this.#wrap(body));
  }

  #wrap(body: L): Page<L> {
    const page = body as Page<L>;
    const next = (): string | undefined => {
      const last = body.data[body.data.length - 1] as ItemOf<L> | undefined;
      return body.has_more && last !== undefined ? this.#cursorOf(last) : undefined;
    };
    Object.defineProperties(page, {
      hasNextPage: { value: () => next() !== undefined, enumerable: false },
      getNextPage: {
        value: () => {
          const cursor = next();
          if (cursor === undefined) return Promise.reject(new Error('No next page: `has_more` is false.'));
          return this.#load(cursor);
        },
        enumerable: false,
      },
    });
    return page;
  }

  firstPage(): Promise<Page<L>> {
    this.#first ??= this.#load(this.#start);
    return this.#first;
  }

  then<R1 = Page<L>, R2 = never>(
    onfulfilled?: ((value: Page<L>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<L> | R> {
    return this.firstPage().catch(onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ItemOf<L>> {
    let page: Page<L> = await this.firstPage();
    for (;;) {
      for (const item of page.data) yield item as ItemOf<L>;
      if (!page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }
}
