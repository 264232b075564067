// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import Synchronization
import TactusInstrument

/// The request connection to the box, opened again when the box restarts.
final class BoxLink: Sendable {
    let path: String
    private let connection = Mutex<BoxConnection?>(nil)

    init(path: String) { self.path = path }

    func request(_ members: String) async throws -> JSONValue {
        let current = try connection.withLock { c -> BoxConnection in
            if let c, !c.isClosed { return c }
            let fresh = try BoxConnection(path: path)
            c = fresh
            return fresh
        }
        return try await current.request(members)
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
        guard answer["ok"]?.boolValue == true else {
            let status = answer["status"]?.intValue ?? 500
            var extra = ""
            for key in ["field", "line", "retry_after", "toml", "state"] { if let v = answer[key] { extra += ",\(JSONValue.quoted(key)):\(v.json)" } }
            if let tag = answer["etag"]?.stringValue { extra += ",\"etag\":" + JSONValue.quoted(Self.quotedTag(tag)) }
            var response = Problem.response(HTTPResponse.Status(code: status), answer["error"]?.stringValue ?? "the box refused", extra: extra)
            if status == 429, let retry = answer["retry_after"]?.intValue { response.headers[.retryAfter] = "\(retry)" }
            if let tag = answer["etag"]?.stringValue { response.headers[.eTag] = Self.quotedTag(tag) }
            return response
        }
        var headers: HTTPFields = [:]
        if let tag = answer["etag"]?.stringValue { headers[.eTag] = Self.quotedTag(tag) }
        guard let member else { return json("{}", headers: headers) }
        return json(answer[member]?.json ?? "null", headers: headers)
    }

    static func quotedTag(_ tag: String) -> String { "\"\(tag)\"" }

    /// `If-Match` as the box's `if_match` member (`,"if_match":"songs-..."`), or nothing.
    /// A weak tag (`W/"..."`) is taken as its tag; `*` matches any version.
    static func ifMatch(_ request: Request) -> String {
        guard var value = request.headers[.ifMatch]?.trimmingSpaces, !value.isEmpty else { return "" }
        if value.hasPrefix("W/") { value = String(value.dropFirst(2)) }
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return ",\"if_match\":" + JSONValue.quoted(String(value.prefix(128)))
    }

    /// The box's MIDI map answer: where it comes from, its entries and its TOML.
    private func midiMap(_ answer: JSONValue) -> Response {
        guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
        return json("{\"source\":\(answer["source"]?.json ?? "null"),\"map\":\(answer["map"]?.json ?? "[]"),\"toml\":\(answer["toml"]?.json ?? "\"\"")}")
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
            let given = try await body(request, limit: BodyTooLarge.unpaired)?["code"]
            guard let code = given?.stringValue ?? given?.intValue.flatMap({ (0..<1_000_000).contains($0) ? Companion.code(from: UInt64($0)) : nil }) else {
                return Problem.response(.badRequest, "the body must be {\"code\":\"NNNNNN\"}")
            }
            // 256 random bits from the kernel (getrandom) for the token; the box keeps its hash.
            var random = SystemRandomNumberGenerator()
            let token = (0..<4).map { _ in
                let hex = String(random.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
            guard code.utf8.count <= 64 else { return Problem.response(.forbidden, "wrong or expired pairing code: it has 6 digits") }
            let agent = Companion.shortName(request.headers[.userAgent] ?? "browser")
            // The client's address: the box counts wrong codes (and locks) per address.
            let client = ConnectionCounts.key(context.channel.remoteAddress)
            let answer = try await box.request("\"cmd\":\"pair\",\"code\":\(JSONValue.quoted(code)),\"token\":\"\(token)\",\"name\":\(JSONValue.quoted(agent)),\"client\":\(JSONValue.quoted(client))")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            let cookie = "\(CompanionSecurity<Context>.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"
            return json("{\"token\":\"\(token)\",\"browser\":\(answer["browser"]?.json ?? "null")}", headers: [.setCookie: cookie])
        }
        router.get("/api/state") { _, _ in relay(try await box.request("\"cmd\":\"state\""), member: "state") }
        router.patch("/api/state") { request, _ -> Response in
            guard let fields = try await body(request), case .object = fields else {
                return Problem.response(.badRequest, "the body must be a JSON object of state fields, e.g. {\"bpm\":132}")
            }
            return relay(try await box.request("\"cmd\":\"set\",\"fields\":\(fields.json)\(Self.ifMatch(request))"), member: "state")
        }
        router.post("/api/transport") { request, _ -> Response in
            guard let body = try await body(request), case .object = body else {
                return Problem.response(.badRequest, "the body must be {\"playing\":true} or {\"playing\":false} (and \"song\":\"NAME\" to play a song)")
            }
            guard let playing = body["playing"]?.boolValue else {
                let given = body["playing"].map { "playing = \($0.json) is invalid" } ?? "playing is missing"
                return Problem.response(.unprocessableContent, "\(given): allowed true or false", extra: ",\"field\":\"playing\"")
            }
            let song = body["song"]?.stringValue.map { ",\"song\":\(JSONValue.quoted($0))" } ?? ""
            return relay(try await box.request("\"cmd\":\"transport\",\"playing\":\(playing)\(song)"), member: "state")
        }
    }

    /// Songs, the klick import and the sound sets.
    private func addLibraryRoutes(_ router: Router<Context>) {
        router.get("/api/songs") { _, _ -> Response in
            let answer = try await box.request("\"cmd\":\"songs\"")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            return json("{\"toml\":\(answer["toml"]?.json ?? "\"\"")}", headers: [.eTag: Self.quotedTag(answer["etag"]?.stringValue ?? "")])
        }
        router.put("/api/songs") { request, _ -> Response in
            guard let toml = try await body(request, limit: BodyTooLarge.songs)?["toml"]?.stringValue else {
                return Problem.response(.badRequest, "the body must be {\"toml\":\"...\"}")
            }
            let answer = try await box.request("\"cmd\":\"put-songs\",\"toml\":\(JSONValue.quoted(toml))\(Self.ifMatch(request))")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            return json("{\"toml\":\(answer["toml"]?.json ?? "\"\"")}", headers: [.eTag: Self.quotedTag(answer["etag"]?.stringValue ?? "")])
        }
        router.post("/api/songs/import-klick") { request, _ -> Response in
            guard let body = try await body(request, limit: BodyTooLarge.songs), let map = body["map"]?.stringValue else {
                return Problem.response(.badRequest, "the body must be {\"name\":\"...\",\"map\":\"klick tempo map text\"}")
            }
            let name = body["name"]?.stringValue ?? "Imported"
            let answer = try await box.request("\"cmd\":\"import-klick\",\"name\":\(JSONValue.quoted(name)),\"map\":\(JSONValue.quoted(map))")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            return json("{\"toml\":\(answer["toml"]?.json ?? "\"\"")}")
        }
        router.get("/api/sounds") { _, _ -> Response in
            let answer = try await box.request("\"cmd\":\"sounds\"")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            return json("{\"sounds\":\(answer["sounds"]?.json ?? "[]"),\"built_in\":\(answer["built_in"]?.json ?? "[]"),\"current\":\(answer["current"]?.json ?? "null")}")
        }
        router.put("/api/sounds/:set/:file") { request, context -> Response in
            try await upload(request, set: context.parameters.get("set") ?? "", file: context.parameters.get("file") ?? "")
        }
        router.delete("/api/sounds/:set") { _, context -> Response in
            let set = context.parameters.get("set") ?? ""
            return relay(try await box.request("\"cmd\":\"delete-sound\",\"set\":\(JSONValue.quoted(set.removingPercentEncoding ?? set))"), member: nil)
        }
    }

    /// The box's settings, the MIDI map and the practice log.
    private func addSettingsRoutes(_ router: Router<Context>) {
        router.get("/api/preferences") { _, _ in relay(try await box.request("\"cmd\":\"preferences\""), member: "preferences") }
        router.patch("/api/preferences") { request, _ -> Response in
            guard let fields = try await body(request), case .object = fields else {
                return Problem.response(.badRequest, "the body must be a JSON object, e.g. {\"momentum\":false}")
            }
            return relay(try await box.request("\"cmd\":\"set-preferences\",\"fields\":\(fields.json)"), member: "preferences")
        }
        router.get("/api/midi-map") { _, _ in midiMap(try await box.request("\"cmd\":\"midi-map\"")) }
        router.put("/api/midi-map") { request, _ -> Response in
            guard let toml = try await body(request)?["toml"], toml.stringValue != nil || toml == .null else {
                return Problem.response(.badRequest, "the body must be {\"toml\":\"[midi.map] ...\"} or {\"toml\":null} (the configuration's map again)")
            }
            return midiMap(try await box.request("\"cmd\":\"put-midi-map\",\"toml\":\(toml.json)"))
        }
        // Menu > Coach > Calibrate from here: the box plays its clicks; the page polls GET.
        router.get("/api/coach") { _, _ in relay(try await box.request("\"cmd\":\"coach\""), member: "coach") }
        router.post("/api/coach/calibrate") { _, _ in relay(try await box.request("\"cmd\":\"calibrate-coach\""), member: "coach") }
        router.get("/api/practice") { _, _ -> Response in
            let answer = try await box.request("\"cmd\":\"practice\"")
            guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
            return json("{\"minutes\":\(answer["minutes"]?.json ?? "{}"),\"sessions\":\(answer["sessions"]?.json ?? "[]"),\"kept\":\(answer["kept"]?.json ?? "true")}")
        }
    }

    /// The live view: the box's beats and states, and clock pings.
    private func addLiveRoute(_ router: Router<Context>) {
        router.ws("/ws") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
            let token = CompanionSecurity<Context>.token(context.request) ?? ""
            let (id, stream) = live.subscribe()
            defer { live.unsubscribe(id) }
            try await outbound.write(.text("{\"type\":\"hello\",\"ns\":\(monotonicNanoseconds())}"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await line in stream { try await outbound.write(.text(line)) }
                }
                group.addTask {
                    // Clock pings: the page maps its clock to the box's CLOCK_MONOTONIC from these.
                    for try await message in inbound.messages(maxSize: 4096) {
                        guard case .text(let text) = message, let ping = try? JSONValue.parse(text), ping["type"]?.stringValue == "ping" else { continue }
                        try await outbound.write(.text("{\"type\":\"pong\",\"id\":\(ping["id"]?.json ?? "null"),\"ns\":\(monotonicNanoseconds())}"))
                    }
                }
                group.addTask {
                    // A browser revoked at the box loses its live view too: the token is asked about every 5 s.
                    while true {
                        try await Task.sleep(for: .seconds(5))
                        let answer = try await box.request("\"cmd\":\"auth\",\"token\":\(JSONValue.quoted(token))")
                        if answer["ok"]?.boolValue != true { return }
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
        let answer = try await box.request("\"cmd\":\"add-sound\",\"set\":\(JSONValue.quoted(set)),\"file\":\(JSONValue.quoted(file)),\"path\":\(JSONValue.quoted(path))")
        guard answer["ok"]?.boolValue == true else { return relay(answer, member: nil) }
        return json("{\"set\":\(JSONValue.quoted(set)),\"file\":\(JSONValue.quoted(file)),\"bytes\":\(total),\"complete\":\(answer["complete"]?.json ?? "false")}")
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
