// Types of glue/load.mjs (plain JavaScript so the bin can share it).
export declare function elfInterpreter(bytes: Uint8Array): string | undefined;
export declare function libcOfInterpreter(interpreter: string | undefined): "gnu" | "musl" | undefined;
export declare function tagOfPlatform(platform: string, arch: string, libc: () => string): string;
export declare function platformTag(): string;
export declare function tagOfTriple(triple: string): string;
export declare function loadCore():
  | { addon: unknown; tag: string }
  | { error: string; tag: string; supported: string[] };
