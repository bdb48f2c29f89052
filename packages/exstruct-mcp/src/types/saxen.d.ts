// saxen ships no type declarations; this covers the part of its API the row-batch parser uses.
declare module 'saxen' {
  export type DecodeEntities = (text: string) => string;
  export class Parser {
    constructor(options?: { proxy?: boolean });
    on(
      event: 'openTag',
      handler: (
        name: string,
        getAttrs: () => Record<string, string>,
        decode: DecodeEntities,
        selfClosing: boolean,
      ) => void,
    ): this;
    on(
      event: 'closeTag',
      handler: (name: string, decode: DecodeEntities, selfClosing: boolean) => void,
    ): this;
    on(event: 'text', handler: (text: string, decode: DecodeEntities) => void): this;
    on(event: 'cdata', handler: (text: string) => void): this;
    on(event: 'error' | 'warn', handler: (error: Error) => void): this;
    parse(xml: string): Error | undefined;
    write(chunk: string): this;
    end(): Error | undefined;
  }
}
