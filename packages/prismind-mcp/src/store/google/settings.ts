import path from 'node:path';
import type { PrismindConfig } from '../../config/config.js';

/** `[google]` of config.toml with its file paths made absolute (relative ones are in the config's folder). */
export interface GoogleSettings {
  credentials_file: string;
  token_file: string;
  scopes: string[];
  api_url: string;
  max_retry_seconds: number;
  retry_initial_delay_ms: number;
  request_timeout_ms: number;
  /** Application Default Credentials file (GOOGLE_APPLICATION_CREDENTIALS), '' when unset. */
  adc_file: string;
}

export function googleSettings(config: PrismindConfig): GoogleSettings {
  const base = path.dirname(config.config_file);
  return {
    credentials_file: path.resolve(base, config.google.credentials_path),
    token_file: path.resolve(base, config.google.token_path),
    scopes: config.google.scopes,
    api_url: config.google.api_url.replace(/\/+$/, ''),
    max_retry_seconds: config.google.max_retry_seconds,
    retry_initial_delay_ms: config.google.retry_initial_delay_ms,
    request_timeout_ms: config.google.request_timeout_ms,
    adc_file: config.google_adc_file,
  };
}
