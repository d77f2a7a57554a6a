export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  store_id: string;
  event_id: string;
  event: string;
  body: string;
  redelivery_of: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  /** When the delivery was parked in the gate, while it waits there (not part of the API's view). */
  parked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: Date | null;
}

export interface AttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  redelivery_of: string | null;
  created_at: string;
  updated_at: string;
  attempts: AttemptView[];
}

export function toDeliveryView(row: DeliveryRow, attempts: AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event: row.event,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    last_status_code: row.last_status_code,
    redelivery_of: row.redelivery_of,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.started_at.toISOString(),
      duration_ms: attempt.duration_ms,
      status_code: attempt.status_code,
      error: attempt.error,
      response_excerpt: attempt.response_excerpt,
      next_attempt_at: attempt.next_attempt_at?.toISOString() ?? null,
    })),
  };
}
