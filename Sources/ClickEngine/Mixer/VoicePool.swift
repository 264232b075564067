/// A clip being played. `position` is the clip frame that lines up with the first frame
/// of the next block; it is negative while the clip starts later inside that block.
struct Voice: BitwiseCopyable {
    var clip: UnsafePointer<Float>
    var frames: Int
    var position: Int
    var gain: Float
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
    mutating func start(clip: UnsafePointer<Float>, frames: Int, gain: Float, offset: Int) -> Bool {
        guard activeCount < capacity else {
            droppedCount += 1
            return false
        }
        (voices + activeCount).initialize(to: Voice(clip: clip, frames: frames, position: -offset, gain: gain))
        activeCount += 1
        return true
    }

    /// Adds every voice's next `frameCount` frames into `mix` and retires finished voices.
    mutating func mix(into mix: UnsafeMutablePointer<Float>, frameCount: Int) {
        var index = 0
        while index < activeCount {
            var voice = voices[index]
            let first = max(0, -voice.position)
            let end = min(frameCount, voice.frames - voice.position)
            if first < end {
                VoicePool.addScaled(voice.clip + (voice.position + first), gain: voice.gain,
                                    into: mix + first, count: end - first)
            }
            voice.position += frameCount
            if voice.position >= voice.frames {
                activeCount -= 1
                voices[index] = voices[activeCount]
            } else {
                voices[index] = voice
                index += 1
            }
        }
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
