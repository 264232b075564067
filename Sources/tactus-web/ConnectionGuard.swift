// SPDX-License-Identifier: GPL-3.0-or-later
import HummingbirdCore
import NIOHTTPTypes
import NIOCore
import NIOHTTP1
import Synchronization

/// How much one LAN host may hold of the companion before it has paired (issue 32; manual
/// "Safe on a shared LAN"): a few connections, a short wait for each request's head, a
/// small head, and a minute of silence at most.
enum ConnectionLimits {
    /// Open connections from one client address (an IPv6 host counts by its /64): a browser
    /// opens about 6 and one for the live view.
    static let perAddress = 32
    /// Open connections in all: well below systemd's default open-file limit of 1,024.
    static let total = 768
    /// From the connection's first byte (or its opening) to the end of a request's head.
    static let headerTimeout: TimeAmount = .seconds(10)
    /// Nothing read for this long (between requests, or a stalled body): closed.
    static let idleTimeout: TimeAmount = .seconds(60)
    /// A request's head (request line and header fields).
    static let headerBytes = 16 * 1024
}

/// Open connections by client address, shared by every connection.
final class ConnectionCounts: Sendable {
    static let shared = ConnectionCounts()
    private let counts = Mutex<(byAddress: [String: Int], total: Int)>(([:], 0))

    /// Counts a new connection; false (and not counted) when its address or the server is full.
    func admit(_ key: String) -> Bool {
        counts.withLock { c in
            let mine = c.byAddress[key, default: 0]
            guard mine < ConnectionLimits.perAddress, c.total < ConnectionLimits.total else { return false }
            c.byAddress[key] = mine + 1
            c.total += 1
            return true
        }
    }

    func leave(_ key: String) {
        counts.withLock { c in
            let left = c.byAddress[key, default: 1] - 1
            c.byAddress[key] = left > 0 ? left : nil
            c.total -= 1
        }
    }

    var total: Int { counts.withLock { $0.total } }

    /// The address a limit counts by: IPv4 as it is, IPv6 by its first 64 bits.
    static func key(_ address: SocketAddress?) -> String {
        guard let address else { return "?" }
        switch address {
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0.prefix(8)) }
            // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) counts by its IPv4 address.
            if let ip = address.ipAddress, ip.hasPrefix("::ffff:") { return String(ip.dropFirst(7)) }
            return bytes.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
        default:
            return address.ipAddress ?? "?"
        }
    }
}

/// The first handler of every connection, on raw bytes: refuses a connection over the
/// per-address or total cap at once, closes one whose request head takes longer than 10 s
/// or grows past 16 KB, and one that sends nothing for 60 s (a live view's WebSocket
/// excepted: its own checks run every 5 s). A malformed request is answered 400 and closed.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase { case firstHead, inRequest, betweenRequests, laterHead, webSocket, closing }
    private var phase = Phase.firstHead
    private var key: String?
    private var head: [UInt8] = []
    private var headerTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?
    private var lastRead = NIODeadline.now()

    func channelActive(context: ChannelHandlerContext) {
        let key = ConnectionCounts.key(context.channel.remoteAddress)
        guard ConnectionCounts.shared.admit(key) else {
            // Over the cap: closed before anything is read or buffered.
            phase = .closing
            context.close(promise: nil)
            return
        }
        self.key = key
        startHeaderTimer(context)
        scheduleIdleCheck(context, in: ConnectionLimits.idleTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let key { ConnectionCounts.shared.leave(key) }
        key = nil
        headerTimer?.cancel()
        idleTimer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase != .closing else { return }
        lastRead = .now()
        if phase == .betweenRequests {
            phase = .laterHead
            startHeaderTimer(context)
        }
        if phase == .firstHead {
            let buffer = unwrapInboundIn(data)
            head.append(contentsOf: buffer.readableBytesView.prefix(ConnectionLimits.headerBytes + 4 - head.count))
            if let end = endOfHead() {
                headerTimer?.cancel()
                phase = isWebSocketUpgrade(head[..<end]) ? .webSocket : .inRequest
                head = []
            } else if head.count > ConnectionLimits.headerBytes {
                return reject(context, status: "431 Request Header Fields Too Large", "the request's head is larger than 16 KB")
            }
        }
        context.fireChannelRead(data)
    }

    /// The connection stays plain HTTP (an `Upgrade` header on a request that is no live
    /// view's): its heads and silences are timed again.
    func notUpgraded() {
        if phase == .webSocket { phase = .inRequest }
    }

    /// Ends the connection a moment after a refusal that left a body unread (413): the
    /// answer goes out, the rest of the body is never waited for.
    func closeSoon(_ context: ChannelHandlerContext) {
        guard phase != .closing else { return }
        phase = .closing
        headerTimer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(250)) { loopBound.value.close(promise: nil) }
    }

    /// From a request's task: `closeSoon` on the connection's event loop.
    static func closeSoon(_ channel: any Channel) {
        channel.eventLoop.execute {
            let operations = channel.pipeline.syncOperations
            guard let handler = try? operations.handler(type: ConnectionGuard.self), let context = try? operations.context(handler: handler) else {
                return channel.close(promise: nil)
            }
            handler.closeSoon(context)
        }
    }

    /// A later request's head was read whole (from `RequestObserver`).
    func headRead() {
        headerTimer?.cancel()
        if phase == .laterHead || phase == .betweenRequests { phase = .inRequest }
    }

    /// A request was read to its end: the next head's 10 s start at its first byte.
    func requestRead() {
        if phase == .inRequest || phase == .laterHead { phase = .betweenRequests }
    }

    /// Answers a request the HTTP decoder refused (from `ParserErrorCatcher`), then closes.
    func malformed(_ error: HTTPParserError, context: ChannelHandlerContext) {
        if error == .headerOverflow {
            reject(context, status: "431 Request Header Fields Too Large", "the request's head is larger than 16 KB")
        } else {
            reject(context, status: "400 Bad Request", "malformed HTTP request")
        }
    }

    private func reject(_ context: ChannelHandlerContext, status: String, _ message: String) {
        guard phase != .closing else { return }
        phase = .closing
        headerTimer?.cancel()
        let body = Problem.body(message)
        let text = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func startHeaderTimer(_ context: ChannelHandlerContext) {
        headerTimer?.cancel()
        headerTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: ConnectionLimits.headerTimeout) { [self] in
            guard phase == .firstHead || phase == .laterHead else { return }
            reject(context, status: "408 Request Timeout", "the request's head took longer than 10 s")
        }
    }

    private func scheduleIdleCheck(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        idleTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            guard phase != .closing, phase != .webSocket else { return }
            let quiet = NIODeadline.now() - lastRead
            if quiet >= ConnectionLimits.idleTimeout {
                phase = .closing
                context.close(promise: nil)
            } else {
                scheduleIdleCheck(context, in: ConnectionLimits.idleTimeout - quiet)
            }
        }
    }

    private func endOfHead() -> Int? {
        guard head.count >= 4 else { return nil }
        for i in 0...(head.count - 4) where head[i] == 0x0D && head[i + 1] == 0x0A && head[i + 2] == 0x0D && head[i + 3] == 0x0A {
            return i
        }
        return nil
    }

    private func isWebSocketUpgrade(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        return text.split(separator: "\r\n").contains { $0.hasPrefix("upgrade:") && $0.contains("websocket") }
    }
}

/// After the HTTP decoder: a request it cannot parse is answered 400 (431 for a head over
/// 16 KB) by the guard and the connection closed, instead of left open without an answer.
final class ParserErrorCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let connectionGuard: ConnectionGuard
    private let guardContext: ChannelHandlerContext

    init(_ connectionGuard: ConnectionGuard, context: ChannelHandlerContext) {
        self.connectionGuard = connectionGuard
        guardContext = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        connectionGuard.malformed(parserError, context: guardContext)
    }
}

/// Among Hummingbird's handlers (after HTTP/1 decoding): tells the guard where each later
/// request's head and end are, for its 10 s head timeout.
final class RequestObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    private var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
        // Added only when the first request was not upgraded to a WebSocket.
        connectionGuard?.notUpgraded()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: connectionGuard?.headRead()
        case .end: connectionGuard?.requestRead()
        case .body: break
        }
        context.fireChannelRead(data)
    }
}
