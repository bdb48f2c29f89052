// Mermaid's optional ELK layout (`layout: elk`) bundles elkjs, 1.5 MB: the page leaves it out, and a
// diagram that asks for it says so (its source stays readable and commentable).
export default class ElkNotIncluded {
  layout(): Promise<never> {
    return Promise.reject(
      new Error('the ELK layout is not part of md-review; remove "layout: elk" to draw it'),
    );
  }
}
