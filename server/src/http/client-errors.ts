/**
 * Answers for requests Node's HTTP parser refuses before the app sees them: headers over 16 KiB (431), a request
 * that is not valid HTTP (400: a control character in a header, a body shorter than its Content-Length) and one
 * that does not arrive in time (408). Node's own answers are bare (no body, no request id); these follow the
 * contract: the error envelope, `X-Request-Id`, `Connection: close`.
 *
 * What Node does not allow: the request never reached the app, so there is no route, no account and no rate-limit
 * headers; and when the socket is no longer writable (the client reset it) nothing can be answered at all.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { toErrorResponse } from './errors.ts';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The error a parser failure stands for. */
export function clientErrorFor(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'headers_too_large', 'Las cabeceras de la petición superan los 16 KiB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'La petición no ha llegado completa a tiempo.');
    default:
      return new ApiError(400, 'malformed_request', 'La petición no es HTTP válido (cabeceras o cuerpo mal formados).');
  }
}

/** Replaces Node's bare answer to a client error with the contract's envelope. */
export function answerClientErrors(server: Server, logger: Logger): void {
  // A request answered before its body was read in full (a 401 does not wait for the body): when the rest of that
  // body then fails to parse (the client stopped sending it), the error belongs to an answered request, and a second
  // answer would reach the client as an unsolicited response. Such a connection is closed without one.
  // The same when a response has started on the connection: bytes of ours would corrupt it.
  const answeredEarly = new WeakSet<Socket>();
  const responding = new WeakMap<Socket, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Socket;
    responding.set(socket, res);
    res.on('finish', () => {
      if (responding.get(socket) === res) responding.delete(socket);
      if (!req.complete) answeredEarly.add(socket);
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable || answeredEarly.has(socket) || responding.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = newId('request');
    const { status, body } = toErrorResponse(clientErrorFor(err), requestId);
    const json = JSON.stringify(body);
    logger.info({ request_id: requestId, status, code: body.error.code, parser: err.code }, 'refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        json,
    );
  });
}
