// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import Testing
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

/// The companion's pure parts: JSON requests, token hashes, pairing and its lockout,
/// remote changes checked as the settings file checks them, Menu > Settings > Companion.
@Suite struct CompanionTests {
    var clock = ManualClock()

    @Test func jsonReadsWhatTheSocketGets() throws {
        let value = try JSONValue.parse(#" {"cmd":"set","fields":{"bpm":92.5,"meter":"7\/8","swing":null,"x":[true,false,-1e3]},"s":"\u00e9\ud83d\ude00\n"} "#)
        #expect(value["cmd"] == .string("set"))
        #expect(value["fields"]?["bpm"] == .number("92.5"))
        #expect(value["fields"]?["meter"] == .string("7/8"))
        #expect(value["fields"]?["swing"] == .null)
        #expect(value["fields"]?["x"] == .array([.bool(true), .bool(false), .number("-1e3")]))
        #expect(value["s"] == .string("é😀\n"))
        #expect(value.json == #"{"cmd":"set","fields":{"bpm":92.5,"meter":"7/8","swing":null,"x":[true,false,-1e3]},"s":"é😀\n"}"#)
        for bad in ["", "{", "{\"a\":}", "[1,]", "\"\\x\"", "01x", "{\"a\":1} 2", "\"\u{1}\""] {
            #expect(throws: JSONError.self) { try JSONValue.parse(bad) }
        }
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    func companionBox() throws -> BoxState {
        var saved = SavedState()
        saved.preferences.companion = true
        return try BoxState(saved: saved, soundNames: ["woodblock", "beep"], at: clock.now)
    }

    static let token = String(repeating: "ab", count: 32)

    @Test mutating func aCodePairsOnceWithinItsMinute() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("042137"), at: clock.now))
        #expect(box.screen.notice?.text == "Pairing code 042137")
        #expect(box.screen.notice?.until == clock.now + .seconds(60))
        _ = box.handle(.remote(.pair(code: "042137", token: Self.token, name: "Firefox"), at: clock.advance(ms: 59_000)))
        #expect(box.companion.lastPairing == .paired(id: 1))
        #expect(box.screen.notice?.text == "Browser 1 paired: Firefox")
        // Only the hash is kept.
        #expect(box.companion.browsers == [PairedBrowser(id: 1, name: "Firefox", tokenHash: SHA256.hex(Self.token))])
        #expect(box.companion.browser(token: Self.token)?.id == 1)
        #expect(box.companion.browser(token: String(repeating: "cd", count: 32)) == nil)
        // The code pairs a second browser within its 60 s, and none after them.
        let second = String(repeating: "ef", count: 32)
        _ = box.handle(.remote(.pair(code: "042137", token: second, name: "phone"), at: clock.advance(ms: 10)))
        #expect(box.companion.lastPairing == .paired(id: 2))
        #expect(box.companion.browser(token: second)?.id == 2)
        _ = box.handle(.remote(.pair(code: "042137", token: Self.token, name: "late"), at: clock.advance(ms: 1_000)))
        #expect(box.companion.lastPairing == .wrongCode)
        // A fresh code expires after 60 s.
        _ = box.handle(.remote(.showPairingCode("111111"), at: clock.advance(ms: 10)))
        _ = box.handle(.tick(at: clock.advance(ms: 60_000)))
        #expect(box.companion.code == nil)
        _ = box.handle(.remote(.pair(code: "111111", token: Self.token, name: "late"), at: clock.advance(ms: 1)))
        #expect(box.companion.lastPairing == .wrongCode)
    }

    @Test mutating func fiveWrongCodesAMinuteLockPairingForAMinute() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("123456"), at: clock.now))
        for attempt in 1...4 {
            _ = box.handle(.remote(.pair(code: "00000\(attempt)", token: Self.token, name: "x"), at: clock.advance(ms: 1000)))
            #expect(box.companion.lastPairing == .wrongCode)
        }
        let fifth = clock.advance(ms: 1000)
        _ = box.handle(.remote(.pair(code: "000005", token: Self.token, name: "x"), at: fifth))
        // The 5th is answered as a wrong code; it locks pairing from then on.
        #expect(box.companion.lastPairing == .wrongCode)
        #expect(box.companion.isLocked("local", at: fifth))
        // The screen keeps the code: the owner reads it there (issue 32).
        #expect(box.screen.notice?.text == "Pairing code 123456")
        // Even the right code is refused while locked (the code itself has expired by the end).
        _ = box.handle(.remote(.pair(code: "123456", token: Self.token, name: "x"), at: clock.advance(ms: 30_000)))
        #expect(box.companion.lastPairing == .locked(until: fifth + .seconds(60)))
        _ = box.handle(.remote(.showPairingCode("654321"), at: clock.advance(ms: 30_001)))
        _ = box.handle(.remote(.pair(code: "654321", token: Self.token, name: "x"), at: clock.advance(ms: 1)))
        #expect(box.companion.lastPairing == .paired(id: 1))
    }

    @Test mutating func wrongCodesSpreadOverMoreThanAMinuteDoNotLock() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("123456"), at: clock.now))
        for _ in 1...8 {
            _ = box.handle(.remote(.pair(code: "999999", token: Self.token, name: "x"), at: clock.advance(ms: 15_100)))
            #expect(box.companion.lastPairing == .wrongCode)
            _ = box.handle(.remote(.showPairingCode("123456"), at: clock.now))
        }
    }

    @Test mutating func pairedBrowsersAreSavedAndSurviveARestart() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("042137"), at: clock.now))
        _ = box.handle(.remote(.pair(code: "042137", token: Self.token, name: "Firefox \"nightly\""), at: clock.advance(ms: 10)))
        #expect(box.saved.browsers == [PairedBrowser(id: 1, name: "Firefox \"nightly\"", tokenHash: SHA256.hex(Self.token))])
        // Saved as any change is: the save effect comes a moment later, with the browser in it.
        var saves: [SavedState] = []
        for _ in 0..<40 {
            for case .save(let saved) in box.handle(.tick(at: clock.advance(ms: 100))) { saves.append(saved) }
        }
        #expect(saves.last?.browsers.count == 1)
        let text = SettingsFile.encode(box.saved)
        #expect(text.contains("[[browser]]\nid = 1\nname = \"Firefox \\\"nightly\\\"\"\ntoken-sha256 = \"\(SHA256.hex(Self.token))\"\n"))
        #expect(!text.contains(Self.token))
        // The box starts again from the file: the token is still known, and the next number follows.
        let restarted = try SettingsFile.decode(text, file: "settings.toml")
        #expect(restarted == box.saved)
        var again = try BoxState(saved: restarted, at: clock.advance(ms: 1))
        #expect(again.companion.browser(token: Self.token)?.id == 1)
        _ = again.handle(.remote(.showPairingCode("222222"), at: clock.advance(ms: 1)))
        _ = again.handle(.remote(.pair(code: "222222", token: String(repeating: "cd", count: 32), name: "Chromium"), at: clock.advance(ms: 1)))
        #expect(again.companion.lastPairing == .paired(id: 2))
        // Revoked: gone from the saved state too.
        _ = again.handle(.remote(.revoke(browser: 1), at: clock.advance(ms: 1)))
        #expect(again.saved.browsers.map(\.id) == [2])
        #expect(again.companion.browser(token: Self.token) == nil)
        // A hand-edited file is checked as every other table is.
        for (bad, message) in [
            ("[[browser]]\nid = 1\nname = \"x\"\ntoken-sha256 = \"abc\"\n", "token-sha256"),
            ("[[browser]]\nid = 0\nname = \"x\"\ntoken-sha256 = \"\(SHA256.hex("a"))\"\n", "settings.toml:3: browser[0].id = 0 is invalid"),
            ("[[browser]]\nname = \"x\"\ntoken-sha256 = \"\(SHA256.hex("a"))\"\n", "id"),
            ("[[browser]]\nid = 1\nname = \"x\"\ntoken = \"\(Self.token)\"\n", "token"),
        ] {
            #expect(throws: TOMLError.self) { try SettingsFile.decode("schema = 1\n" + bad, file: "settings.toml") }
            do { _ = try SettingsFile.decode("schema = 1\n" + bad, file: "settings.toml") } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    @Test mutating func offMeansNoPairingAndSwitchingOffForgetsEveryBrowser() throws {
        var box = try BoxState(saved: SavedState(), at: clock.now)
        _ = box.handle(.remote(.showPairingCode("123456"), at: clock.now))
        #expect(box.companion.code == nil)
        _ = box.handle(.remote(.companion(on: true), at: clock.advance(ms: 1)))
        _ = box.handle(.remote(.showPairingCode("123456"), at: clock.advance(ms: 1)))
        _ = box.handle(.remote(.pair(code: "123456", token: Self.token, name: "x"), at: clock.advance(ms: 1)))
        #expect(box.companion.browsers.count == 1)
        _ = box.handle(.remote(.companion(on: false), at: clock.advance(ms: 1)))
        #expect(box.companion.browsers.isEmpty)
    }

    @Test mutating func theMenuSwitchesPairsListsAndRevokes() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("123456"), at: clock.now))
        _ = box.handle(.remote(.pair(code: "123456", token: Self.token, name: "Chromium"), at: clock.advance(ms: 1)))
        let settings = MenuState.entries(.settings, saved: box.saved, companion: box.companion)
        #expect(settings.map(\.text) == ["Momentum: on", "Tap tolerance: 20%", "Screen dim: 60 s", "Footswitch: start", "Silent practice: off",
                                         "Dark gap: off", "Tone timbre: sine", "Tone volume: 50%", "Sync: Internal", "Link start/stop: off",
                                         "Companion: on", "Back"])
        let page = MenuState.entries(.companion, saved: box.saved, companion: box.companion)
        #expect(page.map(\.text) == ["Companion: on", "Pair a browser", "Revoke 1: Chromium", "Back"])
        box.menu = MenuState(page: .companion, selected: 1)
        let effects = box.handle(.gesture(.wheel, .shortPress, at: clock.advance(ms: 1)))
        #expect(effects.contains(.drawPairingCode))
        box.menu = MenuState(page: .companion, selected: 2)
        _ = box.handle(.gesture(.wheel, .shortPress, at: clock.advance(ms: 1)))
        #expect(box.companion.browsers.isEmpty)
        #expect(box.screen.notice?.text == "Browser 1 revoked")
        // Back returns to Settings, on the Companion row.
        box.menu = MenuState(page: .companion, selected: 2)
        _ = box.handle(.gesture(.wheel, .shortPress, at: clock.advance(ms: 1)))
        #expect(box.menu == MenuState(page: .settings, selected: 10))
    }

    @Test func preferencesCoverSyncLinkAndToneCheckedByTheSettingsFileReader() throws {
        let p = try RemotePatch.preferences(try JSONValue.parse(#"{"sync":"link","link_start_stop_sync":true,"tone_note":"C#5","tone_a4":442,"tone_timbre":"organ","tone_volume":30,"screen_dim_seconds":0}"#),
                                            to: Preferences())
        #expect(p.sync == .link && p.linkStartStopSync)
        #expect(p.tone == ReferenceTone(note: 73, reference: 442, timbre: .organ, volume: 30))
        #expect(p.screenDimSeconds == 0 && p.momentum)
        #expect(RemotePatch.json(p).contains(#""sync":"link","link_start_stop_sync":true,"tone_note":"C#5","tone_a4":442,"tone_timbre":"organ","tone_volume":30"#))
        for (body, field, message) in [
            (#"{"sync":"ptp"}"#, "sync", #"sync = "ptp" is invalid: allowed "internal", "midi", "link""#),
            (#"{"tone_a4":500}"#, "tone_a4", "tone_a4 = 500 is invalid: allowed a whole number from 415 to 466"),
            (#"{"link_start_stop_sync":"yes"}"#, "link_start_stop_sync", nil),
            (#"{"tone_note":"H2"}"#, "tone_note", nil),
        ] {
            let patch = try JSONValue.parse(body)
            do {
                _ = try RemotePatch.preferences(patch, to: Preferences())
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.field == field, "\(error)")
                if let message { #expect(error.description == message) }
            }
        }
    }

    @Test func aPatchIsCheckedAsTheSettingsFileChecksIt() throws {
        let current = MetronomeSettings()
        let (s, playing) = try RemotePatch.apply(try JSONValue.parse(#"{"bpm":132,"meter":"7/8","volume":{"master":50,"poly":[10]},"playing":true}"#),
                                                 to: current, soundNames: ["woodblock", "beep"])
        #expect(s.tempo.description == "132")
        #expect(s.meter.description == "7/8")
        #expect(s.beatUnit.description == "1/8")
        #expect(s.volumes.master == 50)
        #expect(s.volumes.polyLayer(1) == 10)
        #expect(playing == true)
        // The same words as the settings file's reader, for the same value.
        for (field, json, toml) in [("bpm", "1000", "bpm = 1000"), ("meter", "\"4/0\"", "meter = \"4/0\""),
                                    ("accents", "\"Xq\"", "accents = \"Xq\""), ("subdivisions", "\"12\"", "subdivisions = \"12\"")] {
            var fileMessage = ""
            do { _ = try SettingsFile.decode("schema = 1\n[current]\n\(toml)\n", file: "settings.toml") } catch { fileMessage = error.message }
            #expect(!fileMessage.isEmpty)
            let patch = try JSONValue.parse("{\"\(field)\":\(json)}")
            do throws(RemotePatch.Problem) {
                _ = try RemotePatch.apply(patch, to: current, soundNames: ["woodblock"])
                Issue.record("\(field) \(json) accepted")
            } catch {
                #expect(error.field == field)
                #expect(error.allowed == fileMessage)
                #expect(error.description == "\(field) = \(json) is invalid: \(fileMessage)")
            }
        }
        #expect(throws: RemotePatch.Problem(field: "sound", value: "\"nope\"", allowed: "allowed one of woodblock, beep")) {
            try RemotePatch.apply(try JSONValue.parse(#"{"sound":"nope"}"#), to: current, soundNames: ["woodblock", "beep"])
        }
        #expect(throws: RemotePatch.Problem.self) { try RemotePatch.apply(try JSONValue.parse(#"{"mode":"song"}"#), to: current, soundNames: []) }
        // An empty key still says which (the fuzzer found ` = "organ" is invalid`).
        let emptyKey = try JSONValue.parse(#"{"":"organ"}"#)
        do throws(RemotePatch.Problem) {
            _ = try RemotePatch.apply(emptyKey, to: current, soundNames: [])
            Issue.record("an empty key was accepted")
        } catch { #expect(error.description.hasPrefix(#""" = "organ" is invalid: not settable: allowed bpm"#), "\(error)") }
        // So does a key with spaces or a line break: quoted, escaped, one line.
        let oddKey = try JSONValue.parse(#"{" tone\nnote":1}"#)
        do throws(RemotePatch.Problem) {
            _ = try RemotePatch.preferences(oddKey, to: Preferences())
            Issue.record("an odd key was accepted")
        } catch { #expect(error.description.hasPrefix(#"" tone\nnote" = 1 is invalid: "#), "\(error)") }
        #expect(throws: RemotePatch.Problem.self) { try RemotePatch.apply(try JSONValue.parse(#"{"volume":{"master":101}}"#), to: current, soundNames: []) }
    }

    @Test mutating func remoteChangesGoThroughTheReducer() throws {
        var box = try companionBox()
        var s = box.settings
        s.tempo = try Tempo(parsing: "132")
        let effects = box.handle(.remote(.settings(s), at: clock.now))
        #expect(effects.contains(.applySettings(s)))
        #expect(box.saves.due == clock.now + .seconds(2))
        #expect(box.handle(.remote(.transport(playing: true), at: clock.advance(ms: 1))).contains(.start(.box)))
        #expect(box.isPlaying)
        #expect(box.handle(.remote(.transport(playing: true), at: clock.advance(ms: 1))).contains(.start(.box)) == false)
        #expect(box.handle(.remote(.transport(playing: false), at: clock.advance(ms: 1))).contains(.stop(.box)))
    }

    @Test func songsTOMLIsCheckedWithLineAndField() throws {
        let library = try RemotePatch.library(fromTOML: "[[song]]\nname = \"A\"\n[[song.section]]\nbars = 2\ntempo = \"100\"\n[setlist]\nsongs = [\"A\"]\n")
        #expect(library.songs.map(\.name) == ["A"])
        #expect(try RemotePatch.library(fromTOML: RemotePatch.toml(library)) == library)
        do throws(TOMLError) {
            _ = try RemotePatch.library(fromTOML: "[[song]]\nname = \"A\"\n[[song.section]]\nbars = 0\ntempo = \"100\"\n")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 4)
            #expect(error.description.hasPrefix("songs.toml:4: "))
            #expect(error.description.contains("bars = 0 is invalid"))
        }
    }

    @Test func listenAddressesAreIPv4WithAPort() {
        #expect(ListenAddress("0.0.0.0:8080")?.port == 8080)
        #expect(ListenAddress("192.168.1.20:80")?.host == "192.168.1.20")
        for bad in ["0.0.0.0", "localhost:80", "1.2.3:80", "1.2.3.4:0", "1.2.3.4:65536", "1.2.3.256:80", "1.2.3.4:08"] {
            #expect(ListenAddress(bad) == nil)
        }
    }

    @Test mutating func aFloodFromOneAddressNeverRefusesAnother() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("314159"), at: clock.now))
        for attempt in 0..<50 {
            _ = box.handle(.remote(.pair(code: String(format6: attempt), token: Self.token, name: "x", client: "10.0.0.66"), at: clock.advance(ms: 100)))
        }
        #expect(box.companion.isLocked("10.0.0.66", at: clock.now))
        #expect(!box.companion.isLocked("10.0.0.2", at: clock.now))
        #expect(box.screen.notice?.text == "Pairing code 314159")
        #expect(box.companion.validCode(at: clock.now) == "314159")
        _ = box.handle(.remote(.pair(code: "314159", token: Self.token, name: "owner", client: "10.0.0.2"), at: clock.advance(ms: 1)))
        #expect(box.companion.lastPairing == .paired(id: 1))
        _ = box.handle(.remote(.pair(code: "314159", token: Self.token, name: "x", client: "10.0.0.66"), at: clock.advance(ms: 1)))
        #expect(box.companion.lastPairing == .locked(until: box.companion.lockedUntil("10.0.0.66", at: clock.now)!))
    }

    @Test mutating func atMost32BrowsersWithNamesCutAt64Bytes() throws {
        var box = try companionBox()
        _ = box.handle(.remote(.showPairingCode("271828"), at: clock.now))
        let long = String(repeating: "\u{00E9}", count: 40_000)
        for _ in 0..<Companion.maximumBrowsers {
            _ = box.handle(.remote(.pair(code: "271828", token: Self.token, name: long), at: clock.advance(ms: 1)))
        }
        #expect(box.companion.browsers.count == 32)
        #expect(box.companion.browsers.allSatisfy { $0.name == String(repeating: "\u{00E9}", count: 32) })
        _ = box.handle(.remote(.pair(code: "271828", token: Self.token, name: "one more"), at: clock.advance(ms: 1)))
        #expect(box.companion.lastPairing == .full)
        #expect(box.companion.browsers.count == 32)
        #expect(Companion.shortName("ab\u{1F600}\u{1F600}") == "ab\u{1F600}\u{1F600}")
        #expect(Companion.shortName(String(repeating: "a", count: 63) + "\u{00E9}") == String(repeating: "a", count: 63))
    }
}

private extension String {
    init(format6 n: Int) {
        let digits = String(n)
        self = String(repeating: "0", count: 6 - digits.count) + digits
    }
}
