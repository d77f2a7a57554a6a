import type { PlatformHttp } from './platform-http.js';
import { pollUntil, type PollingOptions } from './polling.js';
import { PlatformError, type AccountCredentials } from './social-platform.js';

/** Where one Meta API (Instagram Graph, Threads) keeps what the container flow needs. */
export interface MetaContainerApi {
  /** Human name, for messages ("Instagram"). */
  name: string;
  /** The platform id, the prefix of its own error codes (`instagram_media_error`). */
  platform: 'instagram' | 'threads';
  http: PlatformHttp;
  /** The API's URL of a path (`/{id}`), with its version. */
  url(path: string): string;
  /** The container's status fields: the status itself and the reason of an ERROR. */
  statusFields: { status: string; reason: string };
  polling: PollingOptions;
}

/**
 * Meta's content publishing, as Instagram and Threads share it: a media container is created, its
 * status read until FINISHED (bounded: still IN_PROGRESS after the polls is `transient`, nothing
 * was published), the container published, then the post's permalink read. Which container, which
 * publish endpoint and whether to wait are each platform's (see its class).
 */
export class MetaContainerFlow {
  constructor(private readonly api: MetaContainerApi) {}

  /** Creates a container (`path`, the form and the account's token); its id. */
  async create(path: string, form: Record<string, string | undefined>, account: AccountCredentials): Promise<string> {
    const container = await this.api.http.call(this.api.url(path), {
      method: 'POST',
      form: { ...form, access_token: account.accessToken },
      harmless: true,
      secrets: [account.accessToken],
    });
    const containerId = container.body?.id;
    if (!containerId)
      throw new PlatformError(`${this.api.name} did not return a media container`, 'transient', 'platform_unavailable');
    return String(containerId);
  }

  /** Reads the container's status until FINISHED (or PUBLISHED); ERROR or EXPIRED is `rejected`. */
  async waitUntilReady(containerId: string, account: AccountCredentials): Promise<void> {
    const { status: statusField, reason: reasonField } = this.api.statusFields;
    const ready = await pollUntil(this.api.polling, async () => {
      const answer = await this.api.http.call(this.api.url(`/${encodeURIComponent(containerId)}`), {
        query: { fields: `${statusField},${reasonField}`, access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      const status = answer.body?.[statusField];
      if (status === 'ERROR' || status === 'EXPIRED') {
        const reason = typeof answer.body?.[reasonField] === 'string' ? `: ${answer.body[reasonField]}` : '';
        throw new PlatformError(
          `${this.api.name} could not process the media${reason}`,
          'rejected',
          `${this.api.platform}_media_error`,
        );
      }
      return status === 'FINISHED' || status === 'PUBLISHED' ? true : undefined;
    });
    if (!ready) {
      throw new PlatformError(
        `${this.api.name} is still processing the media; nothing was published yet`,
        'transient',
        'media_processing',
      );
    }
  }

  /** Publishes the container (`path`, with `creation_id`); the post's id. */
  async publish(path: string, containerId: string, account: AccountCredentials): Promise<string> {
    const published = await this.api.http.call(this.api.url(path), {
      method: 'POST',
      form: { creation_id: containerId, access_token: account.accessToken },
      secrets: [account.accessToken],
    });
    const id = published.body?.id;
    if (!id)
      throw new PlatformError(
        `${this.api.name} accepted the post but did not return its id`,
        'unknown_outcome',
        'unknown_outcome',
      );
    return String(id);
  }

  /** The post's address; it is published already, so a failure here falls back to `profileUrl`. */
  async permalink(id: string, account: AccountCredentials, profileUrl: string): Promise<string> {
    try {
      const answer = await this.api.http.call(this.api.url(`/${encodeURIComponent(id)}`), {
        query: { fields: 'permalink', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      if (typeof answer.body?.permalink === 'string') return answer.body.permalink;
    } catch {
      // published; only the address is missing
    }
    return profileUrl;
  }
}
