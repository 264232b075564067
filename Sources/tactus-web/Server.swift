// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import Synchronization
import TactusWire

/// The request connection to the box, opened again when the box restarts.
final class BoxLink: Sendable {
    let path: String
    private let connection = Mutex<BoxConnection?>(nil)

    init(path: String) { self.path = path }

    func request(_ command: WireCommand, _ members: JSONObject = JSONObject()) async throws -> JSONValue {
        let current = try connection.withLock { c -> BoxConnection in
            if let c, !c.isClosed { return c }
            let fresh = try BoxConnection(path: path)
            c = fresh
            return fresh
        }
        return try await current.request(command, members)
    }
}

/// Upload limits: 20 MB a file, 100 MB in all at once (what is being spooled).
final class UploadBudget: Sendable {
    static let fileLimit = 20_000_000
    static let totalLimit = 100_000_000
    private let inUse = Mutex(0)

    func reserve(_ bytes: Int) -> Bool {
        inUse.withLock { used in
            guard used + bytes <= UploadBudget.totalLimit else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) { inUse.withLock { $0 -= bytes } }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

struct CompanionServer {
    let listen: ListenAddress
    let box: BoxLink
    let live: LiveHub
    let share: String
    let spool: String
    let budget = UploadBudget()
    let logger: Logger

    typealias Context = CompanionContext

    func makeApplication(onRunning: @escaping @Sendable () async -> Void) -> some ApplicationProtocol {
        let router = Router(context: Context.self)
        router.add(middleware: BoxErrors<Context>())
        router.add(middleware: CompanionSecurity<Context>(allowedHosts: allowedHosts(listen: listen), box: box))
        addRoutes(router)
        var configuration = ApplicationConfiguration(address: .hostname(listen.host, port: listen.port), serverName: "tactus-web")
        configuration.serverName = nil
        return Application(router: router, server: CompanionChannel.builder(webSocketRouter: router), configuration: configuration,
                           onServerRunning: { _ in await onRunning() }, logger: logger)
    }

    private func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    private func json(_ object: JSONObject, headers: HTTPFields = [:]) -> Response { json(object.text, headers: headers) }

    /// The answer's members named, each as the box gave it or else its default.
    private func pick(_ answer: JSONValue, _ members: [(WireField, JSONValue)]) -> JSONObject {
        JSONObject { o in for (field, fallback) in members { o.add(field, answer[field.name] ?? fallback) } }
    }

    /// The box's answer as HTTP: its member on success, its status and message otherwise.
    /// An answer with a version (`etag`) carries it as the `ETag` header.
    ///
    /// For the pages (issue 32): a `PUT /api/songs` or `PATCH /api/state` whose `If-Match`
    /// names an older `ETag` than the box's is not applied and answers 412 with
    ///   `{"error":"the songs changed since you read them (someone else saved): yours are not saved; reload to see theirs",
    ///     "etag":"\"songs-...\"","toml":"<the songs now on the box>"}`
    /// (for the state: `"state":{...}` in place of `"toml"`), and the new version as `ETag`.
    /// Without `If-Match` (or with `*`) a write goes through as before.
    private func relay(_ answer: JSONValue, member: String?) -> Response {
        guard answer[WireField.ok.name]?.boolValue == true else {
            let status = answer[WireField.status.name]?.intValue ?? 500
            var extra = JSONObject()
            for key in [WireField.field, .line, .retryAfter, .toml, .state] { extra.add(key, ifPresent: answer[key.name]) }
            if let tag = answer[WireField.etag.name]?.stringValue { extra.add(.etag, Self.quotedTag(tag)) }
            var response = Problem.response(HTTPResponse.Status(code: status), answer[WireField.error.name]?.stringValue ?? "the box refused", extra: extra)
            if status == 429, let retry = answer[WireField.retryAfter.name]?.intValue { response.headers[.retryAfter] = "\(retry)" }
            if let tag = answer[WireField.etag.name]?.stringValue { response.headers[.eTag] = Self.quotedTag(tag) }
            return response
        }
        var headers: HTTPFields = [:]
        if let tag = answer[WireField.etag.name]?.stringValue { headers[.eTag] = Self.quotedTag(tag) }
        guard let member else { return json("{}", headers: headers) }
        return json(answer[member]?.json ?? "null", headers: headers)
    }

    static func quotedTag(_ tag: String) -> String { "\"\(tag)\"" }

    /// `If-Match` as the box's `if_match` member (`"if_match":"songs-..."`), or nothing.
    /// A weak tag (`W/"..."`) is taken as its tag; `*` matches any version.
    static func ifMatch(_ request: Request) -> JSONObject {
        guard var value = request.headers[.ifMatch]?.trimmingSpaces, !value.isEmpty else { return JSONObject() }
        if value.hasPrefix("W/") { value = String(value.dropFirst(2)) }
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return JSONObject { $0.add(.ifMatch, String(value.prefix(128))) }
    }

    /// `members` and then `If-Match`'s member.
    static func with(_ members: JSONObject, ifMatch request: Request) -> JSONObject {
        var all = members
        all.append(ifMatch(request))
        return all
    }

    /// The box's MIDI map answer: where it comes from, its entries and its TOML.
    private func midiMap(_ answer: JSONValue) -> Response {
        guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
        return json(pick(answer, [(.source, .null), (.map, .array([])), (.toml, .string(""))]))
    }

    /// A JSON body of at most `limit` bytes (64 KB unless said; the songs 256 KB, pairing
    /// 4 KB): refused from its Content-Length, else as soon as more arrives (413).
    private func body(_ request: Request, limit: Int = 64 << 10) async throws -> JSONValue? {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit { throw BodyTooLarge(limit: limit) }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limit) } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw BodyTooLarge(limit: limit)
        }
        return try? JSONValue.parse(String(buffer: buffer))
    }

    private func addRoutes(_ router: Router<Context>) {
        addRemoteRoutes(router)
        addLibraryRoutes(router)
        addSettingsRoutes(router)
        addLiveRoute(router)
        router.get("/") { _, _ in try staticFile("index.html") }
        router.get("/pair") { _, _ in try staticFile("pair.html") }
        router.get("/:file") { _, context in try staticFile(context.parameters.get("file") ?? "") }
    }

    /// Pairing, the state and START/STOP.
    private func addRemoteRoutes(_ router: Router<Context>) {
        router.post("/api/pair") { request, context -> Response in
            // A script may send the code as a number ({"code":42137} for 042137).
            let given = try await body(request, limit: BodyTooLarge.unpaired)?[WireField.code.name]
            guard let code = given?.stringValue ?? given?.intValue.flatMap({ (0..<1_000_000).contains($0) ? Pairing.code(from: UInt64($0)) : nil }) else {
                return Problem.response(.badRequest, "the body must be {\"code\":\"NNNNNN\"}")
            }
            // 256 random bits from the kernel (getrandom) for the token; the box keeps its hash.
            var random = SystemRandomNumberGenerator()
            let token = (0..<4).map { _ in
                let hex = String(random.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
            guard code.utf8.count <= 64 else { return Problem.response(.forbidden, "wrong or expired pairing code: it has 6 digits") }
            let agent = Pairing.shortName(request.headers[.userAgent] ?? "browser")
            // The client's address: the box counts wrong codes (and locks) per address.
            let client = ConnectionCounts.key(context.channel.remoteAddress)
            let answer = try await box.request(.pair, JSONObject {
                $0.add(.code, code)
                $0.add(.token, token)
                $0.add(.name, agent)
                $0.add(.client, client)
            })
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            let cookie = "\(CompanionSecurity<Context>.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"
            return json(JSONObject { $0.add(.token, token); $0.add(.browser, answer[WireField.browser.name] ?? .null) }, headers: [.setCookie: cookie])
        }
        router.get("/api/state") { _, _ in relay(try await box.request(.state), member: WireField.state.name) }
        router.patch("/api/state") { request, _ -> Response in
            guard let fields = try await body(request), case .object = fields else {
                return Problem.response(.badRequest, "the body must be a JSON object of state fields, e.g. {\"bpm\":132}")
            }
            return relay(try await box.request(.set, Self.with(JSONObject { $0.add(.fields, fields) }, ifMatch: request)), member: WireField.state.name)
        }
        router.post("/api/transport") { request, _ -> Response in
            guard let body = try await body(request), case .object = body else {
                return Problem.response(.badRequest, "the body must be {\"playing\":true} or {\"playing\":false} (and \"song\":\"NAME\" to play a song)")
            }
            guard let playing = body[WireField.playing.name]?.boolValue else {
                let given = body[WireField.playing.name].map { "playing = \($0.json) is invalid" } ?? "playing is missing"
                return Problem.response(.unprocessableContent, "\(given): allowed true or false", extra: JSONObject { $0.add(.field, WireField.playing.name) })
            }
            let members = JSONObject {
                $0.add(.playing, playing)
                $0.add(.song, ifPresent: body[WireField.song.name]?.stringValue)
            }
            return relay(try await box.request(.transport, members), member: WireField.state.name)
        }
        // TAP as the box's button: the box applies its own tap-tempo rule (its tolerance).
        router.post("/api/tap") { _, _ in relay(try await box.request(.tap), member: WireField.state.name) }
    }

    /// Songs, the klick import and the sound sets.
    private func addLibraryRoutes(_ router: Router<Context>) {
        router.get("/api/songs") { _, _ -> Response in
            let answer = try await box.request(.songs)
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            return json(pick(answer, [(.toml, .string(""))]), headers: [.eTag: Self.quotedTag(answer[WireField.etag.name]?.stringValue ?? "")])
        }
        router.put("/api/songs") { request, _ -> Response in
            guard let toml = try await body(request, limit: BodyTooLarge.songs)?[WireField.toml.name]?.stringValue else {
                return Problem.response(.badRequest, "the body must be {\"toml\":\"...\"}")
            }
            let answer = try await box.request(.putSongs, Self.with(JSONObject { $0.add(.toml, toml) }, ifMatch: request))
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            return json(pick(answer, [(.toml, .string(""))]), headers: [.eTag: Self.quotedTag(answer[WireField.etag.name]?.stringValue ?? "")])
        }
        router.post("/api/songs/import-klick") { request, _ -> Response in
            guard let body = try await body(request, limit: BodyTooLarge.songs), let map = body[WireField.map.name]?.stringValue else {
                return Problem.response(.badRequest, "the body must be {\"name\":\"...\",\"map\":\"klick tempo map text\"}")
            }
            let name = body[WireField.name.name]?.stringValue ?? "Imported"
            let answer = try await box.request(.importKlick, JSONObject { $0.add(.name, name); $0.add(.map, map) })
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            return json(pick(answer, [(.toml, .string(""))]))
        }
        router.get("/api/sounds") { _, _ -> Response in
            let answer = try await box.request(.sounds)
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            return json(pick(answer, [(.sounds, .array([])), (.builtIn, .array([])), (.current, .null)]))
        }
        router.put("/api/sounds/:set/:file") { request, context -> Response in
            try await upload(request, set: context.parameters.get("set") ?? "", file: context.parameters.get("file") ?? "")
        }
        router.delete("/api/sounds/:set") { _, context -> Response in
            let set = context.parameters.get("set") ?? ""
            return relay(try await box.request(.deleteSound, JSONObject { $0.add(.set, set.removingPercentEncoding ?? set) }), member: nil)
        }
    }

    /// The box's settings, the MIDI map and the practice log.
    private func addSettingsRoutes(_ router: Router<Context>) {
        router.get("/api/preferences") { _, _ in relay(try await box.request(.preferences), member: WireField.preferences.name) }
        router.patch("/api/preferences") { request, _ -> Response in
            guard let fields = try await body(request), case .object = fields else {
                return Problem.response(.badRequest, "the body must be a JSON object, e.g. {\"momentum\":false}")
            }
            return relay(try await box.request(.setPreferences, JSONObject { $0.add(.fields, fields) }), member: WireField.preferences.name)
        }
        router.get("/api/midi-map") { _, _ in midiMap(try await box.request(.midiMap)) }
        router.put("/api/midi-map") { request, _ -> Response in
            guard let toml = try await body(request)?[WireField.toml.name], toml.stringValue != nil || toml == .null else {
                return Problem.response(.badRequest, "the body must be {\"toml\":\"[midi.map] ...\"} or {\"toml\":null} (the configuration's map again)")
            }
            return midiMap(try await box.request(.putMIDIMap, JSONObject { $0.add(.toml, toml) }))
        }
        // Menu > Coach > Calibrate from here: the box plays its clicks; the page polls GET.
        router.get("/api/coach") { _, _ in relay(try await box.request(.coach), member: WireField.coach.name) }
        router.post("/api/coach/calibrate") { _, _ in relay(try await box.request(.calibrateCoach), member: WireField.coach.name) }
        router.get("/api/practice") { _, _ -> Response in
            let answer = try await box.request(.practice)
            guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
            return json(pick(answer, [(.minutes, .object([])), (.sessions, .array([])), (.kept, .bool(true))]))
        }
    }

    /// The live view: the box's beats and states, and clock pings.
    private func addLiveRoute(_ router: Router<Context>) {
        router.ws("/ws") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
            let token = CompanionSecurity<Context>.token(context.request) ?? ""
            let (id, stream) = live.subscribe()
            defer { live.unsubscribe(id) }
            try await outbound.write(.text(JSONObject { $0.add(.type, WireEvent.hello); $0.add(.ns, monotonicNanoseconds()) }.text))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await line in stream { try await outbound.write(.text(line)) }
                }
                group.addTask {
                    // Clock pings: the page maps its clock to the box's CLOCK_MONOTONIC from these.
                    for try await message in inbound.messages(maxSize: 4096) {
                        guard case .text(let text) = message, let ping = try? JSONValue.parse(text), ping[WireField.type.name]?.stringValue == WireEvent.ping.name else { continue }
                        let pong = JSONObject {
                            $0.add(.type, WireEvent.pong)
                            $0.add(.id, ping[WireField.id.name] ?? .null)
                            $0.add(.ns, monotonicNanoseconds())
                        }
                        try await outbound.write(.text(pong.text))
                    }
                }
                group.addTask {
                    // A browser revoked at the box loses its live view too: the token is asked about every 5 s.
                    while true {
                        try await Task.sleep(for: .seconds(5))
                        let answer = try await box.request(.auth, JSONObject { $0.add(.token, token) })
                        if answer[WireField.ok.name]?.boolValue != true { return }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The pages' policy: their own files only, no inline script or style anywhere (the pages
    /// keep none), no plugins, forms or frames elsewhere.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// A file of the share folder: a flat folder, names checked, never a path.
    private func staticFile(_ name: String) throws -> Response {
        let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
                     "svg": "image/svg+xml", "png": "image/png"]
        let ext = name.split(separator: ".").last.map(String.init) ?? ""
        guard let type = types[ext], name.utf8.allSatisfy({ b in
            (0x30...0x39).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }), !name.hasPrefix("."), let bytes = readFile("\(share)/\(name)", limit: 1 << 20) else {
            return Problem.response(.notFound, "no such page")
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache",
                                               .contentSecurityPolicy: CompanionServer.contentSecurityPolicy,
                                               HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// One WAV of a sound set: refused from Content-Length before the body is read, else
    /// counted while it streams to the spool folder (never held in memory), then handed to
    /// the box, which checks it and takes it into its sounds folder.
    private func upload(_ request: Request, set rawSet: String, file rawFile: String) async throws -> Response {
        let set = rawSet.removingPercentEncoding ?? rawSet, file = rawFile.removingPercentEncoding ?? rawFile
        guard ["accent.wav", "beat.wav", "sub.wav", "poly.wav"].contains(file) else {
            return Problem.response(.badRequest, "file must be accent.wav, beat.wav, sub.wav or poly.wav")
        }
        guard !set.isEmpty, set.utf8.count <= 32, !set.contains("/"), !set.hasPrefix("."), !set.hasPrefix(" ") else {
            return Problem.response(.badRequest, "sound set name is invalid: allowed 1 to 32 letters, digits, spaces, - and _")
        }
        var declared = UploadBudget.fileLimit
        if let text = request.headers[.contentLength] {
            guard let length = Int(text), length >= 0 else { return Problem.response(.badRequest, "Content-Length is not a number") }
            guard length <= UploadBudget.fileLimit else {
                return Problem.response(.contentTooLarge, "\(file) is \(length) bytes: at most 20 MB a file")
            }
            declared = length
        }
        guard budget.reserve(declared) else {
            return Problem.response(.contentTooLarge, "uploads in progress exceed 100 MB in all: try again when they finish")
        }
        defer { budget.release(declared) }
        var random = SystemRandomNumberGenerator()
        let path = "\(spool)/upload-\(String(random.next() as UInt64, radix: 16)).wav"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard fd >= 0 else { return Problem.response(.internalServerError, "the spool folder \(spool) cannot be written") }
        defer { unlink(path) }
        var total = 0
        var tooLarge = false
        do {
            for try await chunk in request.body {
                total += chunk.readableBytes
                if total > declared { tooLarge = true; break }
                let ok = chunk.withUnsafeReadableBytes { raw -> Bool in
                    var done = 0
                    while done < raw.count {
                        let n = write(fd, raw.baseAddress! + done, raw.count - done)
                        if n < 0 && errno == EINTR { continue }
                        guard n > 0 else { return false }
                        done += n
                    }
                    return true
                }
                guard ok else { close(fd); return Problem.response(.internalServerError, "the spool folder is full") }
            }
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        if tooLarge { return Problem.response(.contentTooLarge, "\(file) is larger than 20 MB (or than its Content-Length)") }
        let answer = try await box.request(.addSound, JSONObject { $0.add(.set, set); $0.add(.file, file); $0.add(.path, path) })
        guard answer[WireField.ok.name]?.boolValue == true else { return relay(answer, member: nil) }
        return json(JSONObject {
            $0.add(.set, set)
            $0.add(.file, file)
            $0.add(.bytes, total)
            $0.add(.complete, answer[WireField.complete.name] ?? .bool(false))
        })
    }
}

/// A whole small file, or nil.
func readFile(_ path: String, limit: Int) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= limit else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
        guard n > 0 else { return nil }
        done += n
    }
    return bytes
}
