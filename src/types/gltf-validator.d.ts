/** Minimal types of the `gltf-validator` package (the Khronos glTF validator, compiled from Dart). */
declare module 'gltf-validator' {
  export interface ValidatorMessage {
    code: string;
    message: string;
    /** 0 error, 1 warning, 2 information, 3 hint. */
    severity: number;
    pointer?: string;
  }
  export interface ValidatorReport {
    issues: { numErrors: number; numWarnings: number; messages: ValidatorMessage[] };
  }
  export function validateBytes(
    data: Uint8Array,
    options?: {
      uri?: string;
      maxIssues?: number;
      writeTimestamp?: boolean;
      externalResourceFunction?: (uri: string) => Promise<Uint8Array>;
    },
  ): Promise<ValidatorReport>;
}
