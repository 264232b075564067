// SPDX-License-Identifier: GPL-3.0-or-later
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The companion's request context: Hummingbird's WebSocket context plus the connection, so
/// a refused upgrade can be answered on it with its reason.
struct CompanionContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<CompanionContext>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// Why an upgrade was refused, by connection, from the security middleware to the channel
/// that answers it.
final class UpgradeRefusals: Sendable {
    static let shared = UpgradeRefusals()
    private let refusals = Mutex<[ObjectIdentifier: (HTTPResponse.Status, String)]>([:])

    func record(_ status: HTTPResponse.Status, _ body: String, on channel: any Channel) {
        refusals.withLock { $0[ObjectIdentifier(channel)] = (status, body) }
    }

    func take(_ channel: any Channel) -> (HTTPResponse.Status, String)? {
        refusals.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// HTTP/1 with the WebSocket upgrade, where a refused upgrade says why.
///
/// hummingbird-websocket answers every refused upgrade with a bare 400 (its `failedUpgrade`;
/// NIO has consumed the request by then). The companion checks the token, `Origin` and `Host`
/// of an upgrade as it does for the HTTP API, before upgrading, and answers a refusal as the
/// API does: 401 (no token, or one the box does not know) or 403 (a foreign `Origin` or
/// `Host`), with the same JSON body. The upgrade itself is the library's. Its outcome is an
/// internal member of the channel's value, read by name: if a later version renames it,
/// refusals fall back to the library's 400 and the companion's tests say so.
struct CompanionChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let upgrading: HTTP1WebSocketUpgradeChannel

    static func builder<WebSocketRouter: HTTPResponderBuilder>(webSocketRouter: WebSocketRouter) -> HTTPServerBuilder
    where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            // Heads of at most 16 KB (the decoder refuses more; the guard answers 431), and
            // Hummingbird's own idle timeout between requests as well as the guard's.
            let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [RequestObserver()], idleTimeout: ConnectionLimits.idleTimeout,
                                                   httpDecoderConfiguration: .init(maxHeaderFieldSize: ConnectionLimits.headerBytes,
                                                                                   maxHeaderListSize: ConnectionLimits.headerBytes,
                                                                                   maxHeaderFieldCount: 200))
            return CompanionChannel(upgrading: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                            configuration: .init(http1: http1)))
        }
    }

    /// The guard first, on raw bytes; the catcher of parse errors right after the decoder.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connectionGuard = ConnectionGuard()
        do {
            try channel.pipeline.syncOperations.addHandler(connectionGuard, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let bound = NIOLoopBound(connectionGuard, eventLoop: channel.eventLoop)
        return upgrading.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let connectionGuard = bound.value
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ParserErrorCatcher(connectionGuard, context: try operations.context(handler: connectionGuard)),
                                      position: .after(decoder))
            return value
        }.flatMapErrorThrowing { error in
            logger.error("connection setup: \(error)")
            throw error
        }
    }

    func handle(value: Value, logger: Logger) async {
        let refusal = UpgradeRefusals.shared
        let outcome = Mirror(reflecting: value).descendant("upgradeResult") as? EventLoopFuture<HTTP1WebSocketUpgradeChannel.UpgradeResult>
        // Closed before its first request was read (refused by the guard over a cap, or its
        // head timed out): nothing to answer, and nothing worth an error line each.
        if let outcome, (try? await outcome.get()) == nil {
            _ = refusal.take(value.channel)
            return
        }
        guard case .failedUpgrade(let http1, _)? = try? await outcome?.get(), let (status, body) = refusal.take(value.channel) else {
            _ = refusal.take(value.channel)
            return await upgrading.handle(value: value, logger: logger)
        }
        do {
            try await http1.executeThenClose { _, outbound in
                let bytes = ByteBuffer(string: body)
                let head = HTTPResponse(status: status, headerFields: [.connection: "close", .contentType: "application/json",
                                                                       .cacheControl: "no-store", .contentLength: "\(bytes.readableBytes)"])
                try await outbound.write(contentsOf: [.head(head), .body(bytes), .end(nil)])
            }
        } catch {
            logger.trace("a refused upgrade's answer was not written: \(error)")
        }
    }
}
