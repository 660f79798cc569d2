/**
 * A typed event store with projections and snapshots. Written for chunkwise's tests as realistic TypeScript:
 * interfaces, type aliases, enums, namespaces, abstract classes, decorators, generics, overloads and arrow
 * functions assigned to names. 注释：事件存储 🗃️
 */

import { EventEmitter } from "events";

export type EventId = string & { readonly __brand: "EventId" };

export interface DomainEvent<T extends string = string, P = unknown> {
  readonly id: EventId;
  readonly type: T;
  readonly stream: string;
  readonly version: number;
  readonly payload: P;
  readonly at: Date;
}

export enum Consistency {
  Eventual = "eventual",
  Strong = "strong",
}

/** Something that reads events back. */
export interface EventReader {
  read(stream: string, fromVersion?: number): Promise<DomainEvent[]>;
  readAll(): AsyncIterable<DomainEvent>;
}

export class ConcurrencyError extends Error {
  constructor(
    public readonly stream: string,
    public readonly expected: number,
    public readonly actual: number,
  ) {
    super(`stream ${stream}: expected version ${expected}, found ${actual}`);
    this.name = "ConcurrencyError";
  }
}

// Logs how long a method takes (a legacy decorator: experimentalDecorators).
function timed(target: object, key: string, descriptor: PropertyDescriptor): PropertyDescriptor {
  const original = descriptor.value as (...args: unknown[]) => unknown;
  descriptor.value = function (this: unknown, ...args: unknown[]) {
    const started = Date.now();
    try {
      return original.apply(this, args);
    } finally {
      const elapsed = Date.now() - started;
      if (elapsed > 50) {
        console.warn(`${String(key)} took ${elapsed} ms`);
      }
    }
  };
  return descriptor;
}

let counter = 0;
const nextId = (): EventId => `evt-${Date.now().toString(36)}-${(counter++).toString(36)}` as EventId;

export abstract class Store extends EventEmitter implements EventReader {
  protected abstract load(stream: string): DomainEvent[];
  protected abstract save(stream: string, events: DomainEvent[]): void;

  async read(stream: string, fromVersion = 0): Promise<DomainEvent[]> {
    return this.load(stream).filter((e) => e.version >= fromVersion);
  }

  async *readAll(): AsyncIterable<DomainEvent> {
    for (const stream of this.streams()) {
      for (const event of this.load(stream)) {
        yield event;
      }
    }
  }

  protected abstract streams(): Iterable<string>;

  /** Appends events, checking the stream is still at `expectedVersion`. */
  @timed
  append<T extends string, P>(
    stream: string,
    expectedVersion: number,
    events: Array<{ type: T; payload: P }>,
  ): DomainEvent<T, P>[] {
    const existing = this.load(stream);
    const actual = existing.length;
    if (actual !== expectedVersion) {
      throw new ConcurrencyError(stream, expectedVersion, actual);
    }
    const stamped = events.map((e, i) => ({
      id: nextId(),
      type: e.type,
      stream,
      version: actual + i + 1,
      payload: e.payload,
      at: new Date(),
    }));
    this.save(stream, [...existing, ...stamped]);
    for (const e of stamped) {
      this.emit("event", e);
    }
    return stamped;
  }
}

export class MemoryStore extends Store {
  private readonly data = new Map<string, DomainEvent[]>();

  protected load(stream: string): DomainEvent[] {
    return this.data.get(stream) ?? [];
  }

  protected save(stream: string, events: DomainEvent[]): void {
    this.data.set(stream, events);
  }

  protected streams(): Iterable<string> {
    return this.data.keys();
  }
}

export namespace Projections {
  export type Reducer<S> = (state: S, event: DomainEvent) => S;

  export interface Snapshot<S> {
    state: S;
    version: number;
  }

  /** Folds a stream's events into a state, starting from a snapshot when there is one. */
  export async function project<S>(
    reader: EventReader,
    stream: string,
    reducer: Reducer<S>,
    initial: S,
    snapshot?: Snapshot<S>,
  ): Promise<Snapshot<S>> {
    const from = snapshot ? snapshot.version + 1 : 0;
    let state = snapshot ? snapshot.state : initial;
    let version = snapshot ? snapshot.version : 0;
    for (const event of await reader.read(stream, from)) {
      state = reducer(state, event);
      version = event.version;
    }
    return { state, version };
  }

  export const counting: Reducer<Record<string, number>> = (state, event) => ({
    ...state,
    [event.type]: (state[event.type] ?? 0) + 1,
  });
}

export function describe(event: DomainEvent): string;
export function describe(event: DomainEvent, verbose: boolean): string;
export function describe(event: DomainEvent, verbose = false): string {
  const head = `${event.stream}#${event.version} ${event.type}`;
  if (!verbose) {
    return head;
  }
  return `${head} at ${event.at.toISOString()}: ${JSON.stringify(event.payload)}`;
}

export const byStream = (events: DomainEvent[]): Map<string, DomainEvent[]> => {
  const out = new Map<string, DomainEvent[]>();
  for (const e of events) {
    const list = out.get(e.stream);
    if (list) {
      list.push(e);
    } else {
      out.set(e.stream, [e]);
    }
  }
  return out;
};
