// SPDX-License-Identifier: GPL-3.0-or-later
/// A clip being played. `position` is the clip frame that lines up with the first frame
/// of the next block; it is negative while the clip starts later inside that block.
struct Voice: BitwiseCopyable {
    var clip: UnsafePointer<Float>
    var frames: Int
    var position: Int
    var gain: Float
    /// gain x the clip's peak: the most this voice can add to any frame.
    var level: Float
}

/// A fixed set of voices allocated once. A voice plays its clip from the first sample to
/// the last (the completion guarantee); when every voice is busy a new onset is dropped
/// and counted, and no playing voice is ever stolen.
struct VoicePool {
    let capacity: Int
    private let voices: UnsafeMutablePointer<Voice>
    private(set) var activeCount = 0
    private(set) var droppedCount = 0

    init(capacity: Int) {
        self.capacity = capacity
        voices = .allocate(capacity: capacity)
    }

    func deallocate() { voices.deallocate() }

    /// Starts a clip at `offset` frames into the coming block. False when the pool is full.
    mutating func start(clip: UnsafePointer<Float>, frames: Int, gain: Float, level: Float, offset: Int) -> Bool {
        guard activeCount < capacity else {
            droppedCount += 1
            return false
        }
        (voices + activeCount).initialize(to: Voice(clip: clip, frames: frames, position: -offset, gain: gain, level: level))
        activeCount += 1
        return true
    }

    /// Adds every voice's next `frameCount` frames into `mix` and retires finished voices.
    /// Voices stay in the order they started, so each frame is summed in the same order
    /// however the frames are split into blocks (the output never depends on block size).
    mutating func mix(into mix: UnsafeMutablePointer<Float>, frameCount: Int) {
        var kept = 0
        for index in 0..<activeCount {
            var voice = voices[index]
            let first = max(0, -voice.position)
            let end = min(frameCount, voice.frames - voice.position)
            if first < end {
                VoicePool.addScaled(voice.clip + (voice.position + first), gain: voice.gain,
                                    into: mix + first, count: end - first)
            }
            voice.position += frameCount
            if voice.position < voice.frames {
                voices[kept] = voice
                kept += 1
            }
        }
        activeCount = kept
    }

    /// Adds frames `skip ..< skip + count` (from the next block's start) of every voice into
    /// `mix`, without moving any voice: the limiter's look-ahead.
    func peek(into mix: UnsafeMutablePointer<Float>, skip: Int, count: Int) {
        for index in 0..<activeCount {
            let voice = voices[index]
            let position = voice.position + skip
            let first = max(0, -position)
            let end = min(count, voice.frames - position)
            if first < end {
                VoicePool.addScaled(voice.clip + (position + first), gain: voice.gain, into: mix + first, count: end - first)
            }
        }
    }

    /// The most all playing voices together can reach on any frame.
    var levelBound: Float {
        var sum: Float = 0
        for index in 0..<activeCount { sum += voices[index].level }
        return sum
    }

    /// destination[i] += source[i] * gain, eight lanes at a time: the mixer's inner loop.
    @inline(__always)
    static func addScaled(_ source: UnsafePointer<Float>, gain: Float, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let lanes = SIMD8<Float>(repeating: gain)
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(destination)
        var i = 0
        while i + 8 <= count {
            let sum = to.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
                + from.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self) * lanes
            to.storeBytes(of: sum, toByteOffset: 4 * i, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            destination[i] += source[i] * gain
            i += 1
        }
    }

    /// Frames from the start of the next block until the last voice has finished.
    var framesUntilSilent: Int {
        var longest = 0
        for index in 0..<activeCount { longest = max(longest, voices[index].frames - voices[index].position) }
        return longest
    }
}
