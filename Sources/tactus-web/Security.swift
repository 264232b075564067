// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HTTPTypes
import Hummingbird
import TactusWire

/// The companion's rules for every request (README "Companion", "Safe on a shared LAN"):
///
/// 1. `Host` must be one of the box's own names or addresses with the port (DNS rebinding).
/// 2. No path may hold `..` (raw or percent-encoded).
/// 3. Every request but the pairing page (`/pair`, its script and style, `POST /api/pair`)
///    carries the token: the `tactus_token` cookie or `Authorization: Bearer`, checked by the
///    box, which keeps only hashes.
/// 4. State-changing requests (POST, PUT, PATCH, DELETE) and the WebSocket upgrade check
///    `Origin` against the box's own origin (a script may send none); their bodies are
///    JSON, but a sound file upload, which is `audio/wav`.
struct CompanionSecurity<Context: RequestContext>: RouterMiddleware {
    let allowedHosts: Set<String>
    let box: BoxLink

    static var cookieName: String { "tactus_token" }
    /// The pairing page and what it loads (protocol.js: the protocol's names, generated, no state).
    static var publicPaths: Set<String> { ["/pair", "/pair.html", "/pair.js", "/protocol.js", "/style.css", "/api/pair", "/favicon.svg"] }

    static func bearer(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else { return nil }
        return String(authorization.dropFirst(7)).trimmingSpaces
    }

    /// The request's token: `Authorization: Bearer`, else the cookie.
    static func token(_ request: Request) -> String? { bearer(request) ?? request.cookies[cookieName]?.value }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isUpgrade = request.headers[.upgrade]?.lowercased() == "websocket"
        // A refused upgrade is answered by the connection (CompanionChannel), with this status and body.
        let refuse = { (status: HTTPResponse.Status, message: String) -> Response in
            if isUpgrade, let channel = (context as? CompanionContext)?.channel {
                UpgradeRefusals.shared.record(status, Problem.body(message), on: channel)
            }
            return Problem.response(status, message)
        }
        let host = (request.head.authority ?? "").lowercased()
        guard allowedHosts.contains(host) else {
            return refuse(.forbidden, "Host '\(host)' is not this box: open the companion by the box's address")
        }
        let rawPath = request.uri.path
        let decodedPath = rawPath.removingPercentEncoding ?? rawPath
        guard !rawPath.contains(".."), !decodedPath.contains(".."), !decodedPath.contains("\\"), !decodedPath.contains("\0") else {
            return refuse(.badRequest, "the path may not contain '..'")
        }
        let changing = [HTTPRequest.Method.post, .put, .patch, .delete].contains(request.method)
        let cookieToken = request.cookies[Self.cookieName]?.value
        let bearer = Self.bearer(request)
        // Browsers send Origin on every POST, PUT, PATCH, DELETE and WebSocket upgrade, so a
        // foreign one is refused; a request without one is a script's (curl, `requests`), which
        // no page can make a browser send: its body type (JSON or audio/wav) and the
        // SameSite=Strict cookie already keep cross-site forms out.
        if changing || isUpgrade, let origin = request.headers[.origin], origin.lowercased() != "http://\(host)" {
            return refuse(.forbidden, "Origin '\(origin)' is not this box's page")
        }
        if changing {
            let type = (request.headers[.contentType] ?? "").split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() } ?? ""
            let wantsWAV = request.method == .put && rawPath.hasPrefix("/api/sounds/")
            let expected = wantsWAV ? "audio/wav" : "application/json"
            guard type == expected || (request.method == .delete && type.isEmpty) else {
                return refuse(.unsupportedMediaType, "Content-Type must be \(expected)")
            }
        }
        if Self.publicPaths.contains(rawPath) {
            // Before pairing a body is at most 4 KB: refused from its Content-Length, before any is read.
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > BodyTooLarge.unpaired {
                throw BodyTooLarge(limit: BodyTooLarge.unpaired)
            }
            return try await next(request, context)
        }
        guard let token = bearer ?? cookieToken, !token.isEmpty else {
            if request.method == .get, !rawPath.hasPrefix("/api/"), rawPath != "/ws" {
                return Response(status: .seeOther, headers: [.location: "/pair"])
            }
            return refuse(.unauthorized, "not paired: pair this browser with the code shown on the box")
        }
        guard token.utf8.count <= 128 else { return refuse(.unauthorized, "not paired: the token is not this box's") }
        let answer = try await box.request(.auth, JSONObject { $0.add(.token, token) })
        guard answer[WireField.ok.name]?.boolValue == true else {
            if request.method == .get, !rawPath.hasPrefix("/api/"), rawPath != "/ws" {
                return Response(status: .seeOther, headers: [.location: "/pair"])
            }
            return refuse(.unauthorized, "not paired: the token is not this box's (or was revoked)")
        }
        return try await next(request, context)
    }
}

/// JSON error bodies: `{"error":"..."}` and, for a field, `"field"`.
enum Problem {
    static func response(_ status: HTTPResponse.Status, _ message: String, extra: JSONObject = JSONObject()) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body(message, extra: extra))))
    }

    static func body(_ message: String, extra: JSONObject = JSONObject()) -> String {
        var body = JSONObject { $0.add(.error, message) }
        body.append(extra)
        return body.text + "\n"
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// Percent-decoding without Foundation; nil for a broken escape.
    var removingPercentEncoding: String? {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let b = iterator.popFirst() {
            if b == UInt8(ascii: "%") {
                guard iterator.count >= 2, let v = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The box's own names and addresses with the port: what `Host` may say.
func allowedHosts(listen: ListenAddress) -> Set<String> {
    // The listening address itself too, 0.0.0.0 included: `simulate --web 0.0.0.0:PORT` prints
    // that URL, and a page elsewhere can reach it only cross-origin (Origin, token and cookie rules).
    var names: Set<String> = ["localhost", "127.0.0.1", listen.host]
    var buffer = [CChar](repeating: 0, count: 256)
    if gethostname(&buffer, buffer.count) == 0 {
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
        if !name.isEmpty { names.formUnion([name, name + ".local"]) }
    }
    var list: UnsafeMutablePointer<ifaddrs>?
    if getifaddrs(&list) == 0 {
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var addr = inet.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &addr, &text, socklen_t(INET_ADDRSTRLEN))
                }
                names.insert(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            entry = current.pointee.ifa_next
        }
        freeifaddrs(list)
    }
    var hosts: Set<String> = []
    for name in names {
        hosts.insert("\(name):\(listen.port)")
        if listen.port == 80 { hosts.insert(name) }
    }
    return hosts
}

/// A request body over its limit (413, naming the limit).
struct BodyTooLarge: Error {
    /// Before pairing (`POST /api/pair`): 4 KB.
    static let unpaired = 4 << 10
    /// `PUT /api/songs` and the klick import: 256 KB.
    static let songs = 256 << 10
    var limit: Int
    var message: String { "the body is larger than \(limit >> 10) KB (\(limit) bytes): at most \(limit >> 10) KB here" }
}

/// The box's failures as HTTP, outermost: it did not answer within 5 s (504), it is not
/// there (503), a request too large for it (413), a body over its limit (413). Every
/// request gets an answer; none waits on the box for longer than 5 s.
struct BoxErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BoxTimeout {
            return Problem.response(.gatewayTimeout, error.description)
        } catch let error as BoxUnavailable {
            return Problem.response(.serviceUnavailable, error.description)
        } catch let error as RequestTooLarge {
            return Problem.response(.contentTooLarge, error.description)
        } catch let error as BodyTooLarge {
            var response = Problem.response(.contentTooLarge, error.message)
            // The rest of the body is not read: the connection ends with this answer.
            response.headers[.connection] = "close"
            if let channel = (context as? CompanionContext)?.channel { ConnectionGuard.closeSoon(channel) }
            return response
        }
    }
}
