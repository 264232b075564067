// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusArithmetic
import TactusMusic
/// The song mode's own state: which song, where it starts, the practice program (speed
/// trainer, gap click, practice timer) and where the song playing is (from the engine's
/// onsets). Choice 0 is "As set": the metronome as set, endless, so the trainer and the
/// gap work without a song; then the setlist's songs in its order, then the library's other
/// songs (presets included).
public struct SongPractice: Sendable, Hashable {
    public static let timerMinutesRange: ClosedRange<Int> = 0...240
    public static let timerStep = 5
    /// The gap click choices the wheel steps through: play P bars and mute M, a random
    /// mute of p % of the beats, or both.
    public static let gapChoices: [GapChoice] = [GapChoice()]
        + [(1, 1), (2, 1), (3, 1), (2, 2), (4, 4), (1, 3)].map { GapChoice(pattern: GapPattern(play: $0.0, mute: $0.1)) }
        + [10, 25, 50].map { GapChoice(randomMute: Rational(Int64($0))) }
        + [10, 25, 50].map { GapChoice(pattern: GapPattern(play: 2, mute: 1), randomMute: Rational(Int64($0))) }

    /// 0: as set; n: song n - 1 of `SongPractice.choices` (the setlist's first).
    public internal(set) var choice = 0
    /// The section the song starts from (and the one playing, once it plays).
    public internal(set) var section = 0
    public internal(set) var gapIndex = 0
    /// Stop after this many minutes of playing (0: never).
    public internal(set) var timerMinutes = 0
    /// The song is what the engine plays (it was started in song mode).
    public internal(set) var isLoaded = false
    /// The random mute's seed, new at each start (0 before the first).
    public internal(set) var seed: UInt64 = 0
    private var starts: UInt64 = 0
    /// With `advance = "auto"` the engine plays the setlist on from `choice`: the song
    /// playing is `choice + playingSong`, and it began at the program's bar `songStartBar`.
    public internal(set) var playingSong = 0
    public internal(set) var songStartBar: Int64 = 0
    /// When the practice timer stops playing.
    public internal(set) var timerEnds: MonotonicTime?
    /// Where the song is: from the onsets as they are heard.
    public internal(set) var bar: Int64 = 0
    public internal(set) var playingSection = 0
    public internal(set) var bpm: Double?
    /// The earned trainer of the song playing (its own or the box's, with a window), else nil.
    public internal(set) var earned: EarnedTempo?

    public init() {}

    public var gap: GapChoice { SongPractice.gapChoices[gapIndex] }

    /// The songs to choose from: "As set" (the metronome as set), then the setlist's songs
    /// in its order, then the library's others.
    public static func choices(_ saved: SavedState) -> [Song] {
        let s = saved.settings
        let asSet = Song(name: "As set", sections: [SongSection(
            label: "as set", bars: nil, meter: s.meter, beatUnit: s.beatUnit, tempo: .constant(s.tempo.bpm),
            accents: s.accents, subdivisions: s.subdivisions)])
        return [asSet] + saved.songLibrary.playOrder
    }

    /// The choices that are setlist songs (1...n), empty without a setlist.
    public static func setlistChoices(_ saved: SavedState) -> Range<Int> {
        1..<(1 + saved.songLibrary.setlistSongs.count)
    }

    /// The setlist's advance, for a song chosen from it; nil for any other choice.
    public static func advance(of choice: Int, _ saved: SavedState) -> Setlist.Advance? {
        setlistChoices(saved).contains(choice) ? saved.songLibrary.setlist?.advance : nil
    }

    /// The choice whose song is playing (or chosen, when nothing plays).
    public var shownChoice: Int { isLoaded ? choice + playingSong : choice }
    /// The section of the shown song the program started from.
    var startSection: Int { isLoaded && playingSong > 0 ? 0 : section }

    /// The song as the engine plays it: from `section`, the trainer's steps on its constant
    /// tempos, the gap on every section. A song started past its first section has no count-in.
    public func program(_ saved: SavedState) -> Song { programSongs(saved)[0] }

    /// 16ths from the chosen song's bar 0 to the section it starts from (the MIDI clock's
    /// Song Position Pointer; 0 from the first section). Sections before it have bars.
    public func startSixteenths(_ saved: SavedState) -> Int64 {
        let all = SongPractice.choices(saved)
        guard startSection > 0, all.indices.contains(choice) else { return 0 }
        let song = all[choice]
        var whole = Rational.zero
        for section in song.sections.prefix(min(startSection, song.sections.count - 1)) {
            whole = whole + Rational(Int64(section.bars ?? 0)) * section.meter.wholeNotes
        }
        return (whole * Rational(16)).floor
    }

    /// What the engine plays: the chosen song, and with `advance = "auto"` the rest of the
    /// setlist after it (up to an endless song, which never ends), back to back.
    public func programSongs(_ saved: SavedState) -> [Song] {
        let all = SongPractice.choices(saved)
        let first = min(choice, all.count - 1)
        let trainer = saved.preferences.trainer
        var songs = [practiced(all[first], from: section, trainer: trainer)]
        if SongPractice.advance(of: first, saved) == .auto {
            for next in SongPractice.setlistChoices(saved) where next > first && !songs.last!.isEndless {
                songs.append(practiced(all[next], from: 0, trainer: trainer))
            }
        }
        return songs
    }

    /// The song with its practice program: the song's own trainer, else the box's (the one
    /// used is left in `trainer`, which the box's coach follows when it is earned).
    func practiced(_ written: Song, from section: Int, trainer boxTrainer: Trainer) -> Song {
        var song = written
        let trainer = written.trainer ?? boxTrainer
        song.trainer = trainer.isOn ? trainer : nil
        let from = min(section, song.sections.count - 1)
        if from > 0 {
            song.sections = Array(song.sections[from...])
            song.countIn = .none
        }
        for i in song.sections.indices {
            // An earned trainer's steps are the box's live changes, not written in the song.
            if trainer.isOn && !trainer.isEarned, case .constant(let t) = song.sections[i].tempo {
                song.sections[i].tempo = .stepped(start: t, step: Rational(Int64(trainer.step)), every: trainer.bars, unit: .bars,
                                                  limit: nil)
            }
            if let pattern = gap.pattern { song.sections[i].gap = pattern }
            if let p = gap.randomMute { song.sections[i].randomMute = p }
        }
        return song
    }

    /// A setlist that played on: the song playing becomes the chosen one (from its start),
    /// so a jump or a stop goes on from there.
    mutating func rebase() {
        guard playingSong > 0 else { return }
        choice += playingSong
        section = 0
        playingSong = 0
        songStartBar = 0
    }

    /// A fresh seed for a start: the start's time and a counter through SplitMix64 (the box
    /// has no clock or random source of its own); 53 bits, exact in any JSON reader.
    mutating func newSeed(at time: MonotonicTime) {
        starts &+= 1
        seed = RandomMute.hash(seed: UInt64(bitPattern: time.nanoseconds), index: starts) >> 11
    }

    /// The program has a random mute (events then carry the seed).
    public func usesRandomMute(_ saved: SavedState) -> Bool {
        programSongs(saved).contains(where: \.usesRandomMute)
    }
}

// MARK: the song mode's transitions: the wheel, steps, starts and stops, and where the song
// is. The box passes in what they read (the saved songs, the field, the time) and carries
// out the effects.
extension SongPractice {
    /// The song playing (a setlist advancing by itself moves on), or the one chosen.
    func chosenSong(_ saved: SavedState) -> Song {
        let songChoices = SongPractice.choices(saved)
        return songChoices[min(shownChoice, songChoices.count - 1)]
    }

    /// The section playing (counted in the chosen song), or the one chosen to start from.
    func currentSection(_ saved: SavedState) -> Int {
        guard isLoaded else { return section }
        return min(startSection + max(playingSection, 0), chosenSong(saved).sections.count - 1)
    }

    /// A detent in song mode: `field` steps by one (the timer by its step). `time` is the
    /// detent's, `now` the box's (a restart and the timer count from it).
    mutating func songDetent(_ direction: Int, field: Field, _ saved: SavedState, playing isPlaying: Bool,
                             at time: MonotonicTime, now: MonotonicTime) -> [Effect] {
        func step(_ value: Int, _ range: ClosedRange<Int>, by amount: Int = 1) -> Int? {
            let new = min(max(value + direction * amount, range.lowerBound), range.upperBound)
            return new == value ? nil : new
        }
        var effects: [Effect] = []
        if field == .song || field == .songSection { rebase() }
        switch field {
        case .song:
            guard let c = step(shownChoice, 0...(SongPractice.choices(saved).count - 1)) else { return [.buzzer(.bump, at: time)] }
            choice = c
            section = 0
            if isLoaded { effects = restartSong(saved, at: now) }
        case .songSection:
            guard let s = step(currentSection(saved), 0...(chosenSong(saved).sections.count - 1)) else { return [.buzzer(.bump, at: time)] }
            section = s
            if isLoaded { effects = restartSong(saved, at: now) }
        case .gap:
            guard let v = step(gapIndex, 0...(SongPractice.gapChoices.count - 1)) else { return [.buzzer(.bump, at: time)] }
            gapIndex = v
        case .practiceTimer:
            guard let v = step(timerMinutes, SongPractice.timerMinutesRange, by: SongPractice.timerStep) else {
                return [.buzzer(.bump, at: time)]
            }
            timerMinutes = v
            if isPlaying { timerEnds = v == 0 ? nil : now + .seconds(60 * v) }
        default:
            return []
        }
        return [.buzzer(.tick, at: time)] + effects
    }

    /// Next (+1) or previous (-1) section while playing, then the next or previous song;
    /// stopped, the next or previous song.
    mutating func songStep(_ direction: Int, _ saved: SavedState, at now: MonotonicTime) -> [Effect] {
        rebase()
        let sections = chosenSong(saved).sections.count
        let target = currentSection(saved) + direction
        if isLoaded && (0..<sections).contains(target) {
            section = target
        } else {
            let c = shownChoice + direction
            guard (0..<SongPractice.choices(saved).count).contains(c) else { return [.buzzer(.bump, at: now)] }
            choice = c
            section = direction < 0 && isLoaded ? max(chosenSong(saved).sections.count - 1, 0) : 0
        }
        return isLoaded ? restartSong(saved, at: now) : []
    }

    /// Plays the program from the chosen section now (a jump starts at once).
    mutating func restartSong(_ saved: SavedState, at now: MonotonicTime) -> [Effect] {
        isLoaded = true
        playingSection = 0
        playingSong = 0
        songStartBar = 0
        bar = 0
        bpm = nil
        earned = SongPractice.earnedTrainer(programSongs(saved), song: 0, fromBar: 0)
        newSeed(at: now)
        return [.loadSong(programSongs(saved), seed: seed), .start(.box)]
    }

    /// The song stops (the box stops the transport).
    mutating func stopSong() -> [Effect] {
        rebase()
        isLoaded = false
        timerEnds = nil
        bpm = nil
        earned = nil
        return [.loadSong(nil)]
    }

    /// After the songs ended: with `advance = "wait"` the next setlist song is chosen, ready
    /// for START.
    mutating func chooseNext(after shown: Int, _ saved: SavedState) {
        if SongPractice.advance(of: shown, saved) == .wait, SongPractice.setlistChoices(saved).contains(shown + 1) {
            choice = shown + 1
            section = 0
        }
    }

    /// An onset of the song as it is heard: the screen follows song, section, bar and tempo.
    mutating func songProgress(song: Int, section: Int, bar: Int64, bpm: Double, _ saved: SavedState) {
        guard isLoaded else { return }
        if song != playingSong {
            // A setlist playing on: the next song's bar 0 is where the songs before it end.
            let songs = programSongs(saved)
            guard songs.indices.contains(song) else { return }
            playingSong = song
            earned = SongPractice.earnedTrainer(songs, song: song, fromBar: bar)
            songStartBar = songs[..<song].reduce(Int64(0)) { $0 + Int64($1.sections.reduce(0) { $0 + ($1.bars ?? 0) }) }
        }
        playingSection = section
        self.bar = bar
        self.bpm = bpm
    }
}

/// One gap field choice: a P:M pattern, a random mute, both, or neither ("off").
public struct GapChoice: Sendable, Hashable, CustomStringConvertible {
    public var pattern: GapPattern?
    /// Percent of beats muted at random.
    public var randomMute: Rational?

    public init(pattern: GapPattern? = nil, randomMute: Rational? = nil) {
        self.pattern = pattern
        self.randomMute = randomMute
    }

    public var isOff: Bool { pattern == nil && randomMute == nil }

    /// "2:1", "25%", "2:1 25%" or "off".
    public var description: String {
        let parts = [pattern?.description, randomMute.map { $0.decimalDescription + "%" }].compactMap { $0 }
        return parts.isEmpty ? "off" : parts.joined(separator: " ")
    }
}

/// What the song page shows.
public struct SongView: Sendable, Hashable {
    public var name: String
    public var section: String
    /// "3/8": bar of the section (from 1) and its bars ("3" when it plays until stopped).
    public var bar: String
    public var bpm: String
    /// The practice program in one line ("+2/4 gap 2:1 20 min").
    public var program: String
    public var playing: Bool
    /// The value of the field the wheel sets.
    public var fieldValue: String

    public init(name: String, section: String, bar: String, bpm: String, program: String, playing: Bool, fieldValue: String) {
        (self.name, self.section, self.bar, self.bpm) = (name, section, bar, bpm)
        (self.program, self.playing, self.fieldValue) = (program, playing, fieldValue)
    }
}

extension BoxState {
    var songChoices: [Song] { SongPractice.choices(saved) }
    var chosenSong: Song { practice.chosenSong(saved) }

    /// The song page's content (the song mode, or any page while a song plays).
    public var songView: SongView? {
        guard mode == .song || practice.isLoaded else { return nil }
        let song = chosenSong
        let offset = practice.isLoaded ? min(practice.startSection, song.sections.count - 1) : 0
        let index = min(max(practice.isLoaded ? offset + practice.playingSection : practice.section, 0), song.sections.count - 1)
        let section = song.sections[index]
        let bars = section.bars.map { "/\($0)" } ?? ""
        var bar = "-"
        if practice.isLoaded {
            bar = practice.playingSection < 0 ? "count \(practice.bar)" : "\(barInSection(practice.bar, section: index) + 1)\(bars)"
        }
        let bpm = practice.bpm.map { Tempo.format($0) } ?? section.tempo.startTempoText
        var program: [String] = []
        let trainer = song.trainer ?? saved.preferences.trainer
        if trainer.isOn { program.append(trainer.programText) }
        if !practice.gap.isOff { program.append("gap \(practice.gap)") }
        if practice.timerMinutes > 0 { program.append("\(practice.timerMinutes) min") }
        return SongView(name: song.name, section: section.label.isEmpty ? "section \(index + 1)" : section.label, bar: bar,
                        bpm: bpm, program: program.joined(separator: " "), playing: practice.isLoaded,
                        fieldValue: SongFields.value(field, in: self))
    }

    /// Bar within the section from the song's bar (bars from the start section on; loops wrap).
    func barInSection(_ bar: Int64, section: Int) -> Int64 {
        let song = chosenSong
        let from = practice.isLoaded ? min(practice.startSection, song.sections.count - 1) : 0
        var start: Int64 = 0
        let played = Array(song.sections[from...])
        let total = played.reduce(Int64(0)) { $0 + Int64($1.bars ?? 0) }
        var b = bar - (practice.isLoaded ? practice.songStartBar : 0)
        if song.loop, total > 0, played.allSatisfy({ $0.bars != nil }) { b %= total }
        for s in played.indices where from + s < section { start += Int64(played[s].bars ?? 0) }
        return max(b - start, 0)
    }

    // MARK: wheel and buttons in song mode (the song mode's own transitions are SongPractice's)

    mutating func songDetent(_ direction: Int, at time: MonotonicTime) -> [Effect] {
        if let changed = trainerDetent(direction, field: field) {
            guard changed else { return [.buzzer(.bump, at: time)] }
            return [.buzzer(.tick, at: time)]
        }
        return practice.songDetent(direction, field: field, saved, playing: isPlaying, at: time, now: now)
    }

    var currentSection: Int { practice.currentSection(saved) }

    /// START in song mode plays the song; the footswitch steps through sections and songs.
    mutating func songGesture(_ button: ControlButton, _ gesture: ButtonGesture) -> [Effect]? {
        let inSong = mode == .song || practice.isLoaded
        switch (button, gesture) {
        case (.startStop, .press) where mode == .song && !isPlaying,
             (.footswitch, .press) where inSong && !isPlaying && saved.preferences.footswitch == .startStop:
            _ = transport.toggle()
            practice.timerEnds = practice.timerMinutes > 0 ? now + .seconds(60 * practice.timerMinutes) : nil
            return practice.restartSong(saved, at: now)
        case (.startStop, .press) where practice.isLoaded && isPlaying:
            return stopSong()
        case (.footswitch, .press) where practice.isLoaded && saved.preferences.footswitch == .startStop:
            return practice.songStep(1, saved, at: now)
        case (.footswitch, .longPress) where practice.isLoaded:
            return practice.songStep(-1, saved, at: now)
        default:
            return nil
        }
    }

    mutating func stopSong() -> [Effect] {
        var effects: [Effect] = []
        if isPlaying { effects.append(transport.toggle()) }
        return effects + practice.stopSong()
    }

    /// The practice timer: stops playing when it runs out.
    mutating func practiceTimerCheck() -> [Effect] {
        guard let ends = practice.timerEnds, now >= ends else { return [] }
        practice.timerEnds = nil
        let minutes = practice.timerMinutes
        let effects = practice.isLoaded ? stopSong() : (isPlaying ? [transport.toggle()] : [])
        show("Practice done: \(minutes) min", .info)
        return effects
    }

    /// The loaded songs have played to their end: stop. With `advance = "wait"` the next
    /// setlist song is chosen, ready for START.
    mutating func songEnded() -> [Effect] {
        guard practice.isLoaded && isPlaying else { return [] }
        let shown = practice.shownChoice
        let effects = stopSong()
        practice.chooseNext(after: shown, saved)
        return effects
    }

    mutating func songProgress(song: Int, section: Int, bar: Int64, bpm: Double) {
        practice.songProgress(song: song, section: section, bar: bar, bpm: bpm, saved)
    }
}

extension TempoSegment {
    /// The tempo a section starts at, as the screen writes it.
    var startTempoText: String { Tempo.format(startTempo.doubleValue) }
}

extension Tempo {
    /// A tempo for the screen: whole BPM as is, else one decimal (a ramp's tempo moves).
    public static func format(_ bpm: Double) -> String {
        let tenths = (bpm * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(Int(tenths / 10)).\(Int(tenths) % 10)"
    }
}

/// The song mode's fields: labels and values for the screen and the event log.
enum SongFields {
    static func label(_ field: Field) -> String {
        switch field {
        case .song: "song"
        case .songSection: "section"
        case .trainerStep: "trainer step"
        case .trainerBars: "trainer every"
        case .trainerWindow: "trainer window"
        case .trainerDown: "trainer down"
        case .gap: "gap"
        case .practiceTimer: "practice timer"
        case .songCoach: "coach"
        default: ""
        }
    }

    static func value(_ field: Field, in state: BoxState) -> String {
        let p = state.practice
        let t = state.saved.preferences.trainer
        return switch field {
        case .song: state.chosenSong.name
        case .songSection: state.chosenSong.sections[min(state.currentSection, state.chosenSong.sections.count - 1)].label
        case .trainerStep: t.step == 0 ? "off" : "\(t.step > 0 ? "+" : "")\(t.step) BPM"
        case .trainerBars: "\(t.bars) bar\(t.bars == 1 ? "" : "s")"
        case .trainerWindow: t.windowMilliseconds == 0 ? "off" : "+-\(t.windowMilliseconds) ms"
        case .trainerDown: t.downBars == 0 ? "off" : "after \(t.downBars) bar\(t.downBars == 1 ? "" : "s")"
        case .gap: "\(p.gap)"
        case .practiceTimer: p.timerMinutes == 0 ? "off" : "\(p.timerMinutes) min"
        default: ""
        }
    }
}

// MARK: MIDI control

extension BoxState {
    /// A mapped MIDI message's song and preset controls (`[midi.map]`; a program change N
    /// selects the setlist's song N by default). TAP, START/STOP, the footswitch and the
    /// tempo go in as the gestures and detents they stand for.
    mutating func midiControl(_ control: MIDIControl) -> [Effect] {
        switch control {
        case .nextSection, .previousSection:
            let direction = control == .nextSection ? 1 : -1
            if practice.isLoaded { return practice.songStep(direction, saved, at: now) }
            guard mode == .song else {
                show("MIDI: \(direction > 0 ? "next" : "previous") section needs song mode", .info)
                return []
            }
            let target = practice.section + direction
            guard (0..<chosenSong.sections.count).contains(target) else { return [.buzzer(.bump, at: now)] }
            practice.section = target
            return []
        case .preset(let n):
            guard saved.presets.indices.contains(n - 1) else {
                show("MIDI: there is no preset \(n)", .info)
                return []
            }
            settings = saved.presets[n - 1].settings
            tempo.set(settings.tempo)
            show("Preset \(n): \(saved.presets[n - 1].name)", .info)
            return []
        case .song(let n):
            // Setlist song N is choice N (choice 0 is "As set").
            guard SongPractice.setlistChoices(saved).contains(n) else {
                show("MIDI: the setlist has no song \(n)", .info)
                return []
            }
            menu = nil
            navigation.open(.song)
            practice.rebase()
            practice.choice = n
            practice.section = 0
            return practice.isLoaded ? practice.restartSong(saved, at: now) : []
        case .tap, .startStop, .footswitch, .tempoUp, .tempoDown:
            return []
        }
    }
}
