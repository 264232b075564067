// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import HAL
import TactusBase

/// Sample formats the sink can write; the renderer always works in Float.
public enum ALSASampleFormat: String, Sendable, CaseIterable {
    case float32 = "FLOAT_LE"
    case int32 = "S32_LE"
    case int16 = "S16_LE"

    var alsa: snd_pcm_format_t {
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .int32: SND_PCM_FORMAT_S32_LE
        case .int16: SND_PCM_FORMAT_S16_LE
        }
    }

    public var bytesPerSample: Int {
        switch self {
        case .float32, .int32: 4
        case .int16: 2
        }
    }
}

/// An open, configured playback PCM. Owned by one thread at a time (see ALSASink), which is
/// why it may cross threads although the handle itself is not thread-safe.
final class ALSAPCM: @unchecked Sendable {
    let handle: OpaquePointer
    let format: AudioFormat
    let sampleFormat: ALSASampleFormat
    let deviceName: String

    private init(handle: OpaquePointer, format: AudioFormat, sampleFormat: ALSASampleFormat, deviceName: String) {
        self.handle = handle
        self.format = format
        self.sampleFormat = sampleFormat
        self.deviceName = deviceName
    }

    deinit {
        snd_pcm_drop(handle)
        snd_pcm_close(handle)
    }

    /// Opens `device` (from the system configuration, or from `inlineConfiguration` when given)
    /// non-blocking, and negotiates the nearest format to the request.
    static func open(_ request: ALSASink.Configuration) throws(HALError) -> ALSAPCM {
        _ = tactus_alsa_silence_errors()
        var handle: OpaquePointer?
        let openResult: Int32
        if let text = request.inlineConfiguration {
            openResult = try openWithInlineConfiguration(&handle, device: request.device, text: text)
        } else {
            openResult = snd_pcm_open(&handle, request.device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        }
        guard openResult >= 0, let handle else { throw openError(request.device, openResult) }
        do {
            let (format, sampleFormat) = try configure(handle, request)
            return ALSAPCM(handle: handle, format: format, sampleFormat: sampleFormat, deviceName: request.device)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
    }

    private static func openWithInlineConfiguration(_ handle: inout OpaquePointer?, device: String, text: String) throws(HALError) -> Int32 {
        var top: OpaquePointer?
        var input: OpaquePointer?
        guard snd_config_top(&top) >= 0, let top else { throw HALError(.io, "ALSA: cannot create a configuration tree") }
        defer { snd_config_delete(top) }
        let bytes = Array(text.utf8)
        let opened = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { snd_input_buffer_open(&input, $0.baseAddress, buffer.count) }
        }
        guard opened >= 0, let input else { throw HALError(.io, "ALSA: cannot read the inline configuration") }
        defer { snd_input_close(input) }
        let loaded = snd_config_load(top, input)
        guard loaded >= 0 else {
            throw HALError(.invalidArgument, errno: -loaded, "ALSA: the inline PCM configuration does not parse: \(alsaError(loaded))")
        }
        return snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, top)
    }

    static func openError(_ device: String, _ code: Int32) -> HALError {
        openError("audio device '\(device)'", code,
                  missing: "plug in the sound card, or list the devices with `aplay -L` and set audio.device in the board file",
                  busyAlternative: " or use a shared device such as 'default'")
    }

    /// The message for a failed open of a PCM (`what`: "audio device 'x'", "capture device
    /// 'x'"), with what to do about a missing one and, for a busy one, any other way out.
    static func openError(_ what: String, _ code: Int32, missing: String, busyAlternative: String = "") -> HALError {
        let reason = alsaError(code)
        switch -code {
        case ENOENT, ENODEV, ENXIO:
            return HALError(.deviceMissing, errno: -code, "\(what) is not there (\(reason)): \(missing)")
        case EBUSY:
            return HALError(.busy, errno: -code,
                            "\(what) is in use by another program (\(reason)): stop it (`fuser -v /dev/snd/*` shows which)\(busyAlternative)")
        case EACCES, EPERM:
            return HALError(.permissionDenied, errno: -code,
                            "no permission to open \(what) (\(reason)): add the service's user to the 'audio' group")
        default:
            return HALError(.io, errno: -code, "\(what) cannot be opened: \(reason)")
        }
    }

    private static func configure(_ pcm: OpaquePointer, _ request: ALSASink.Configuration) throws(HALError) -> (AudioFormat, ALSASampleFormat) {
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        guard let hw else { throw HALError(.io, "ALSA: out of memory for hardware parameters") }
        defer { snd_pcm_hw_params_free(hw) }
        let device = request.device

        func check(_ result: Int32, _ what: String) throws(HALError) {
            if result < 0 {
                throw HALError(.unsupported, errno: -result, "audio device '\(device)' refuses \(what): \(alsaError(result))")
            }
        }

        try check(snd_pcm_hw_params_any(pcm, hw), "any configuration")
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
        guard let sampleFormat = request.sampleFormats.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.alsa) == 0 }) else {
            throw HALError(.unsupported, "audio device '\(device)' accepts none of the sample formats \(request.sampleFormats.map(\.rawValue).joined(separator: ", ")): use a 'plughw:' or 'default' device, which converts")
        }
        try check(snd_pcm_hw_params_set_format(pcm, hw, sampleFormat.alsa), "format \(sampleFormat.rawValue)")
        try check(snd_pcm_hw_params_set_channels(pcm, hw, UInt32(request.channels)), "\(request.channels) channels")
        // No resampling inside ALSA: the engine renders at whatever rate the device runs.
        try check(snd_pcm_hw_params_set_rate_resample(pcm, hw, 0), "disabling its resampler")
        var rate = UInt32(request.sampleRate)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction), "a rate near \(request.sampleRate) Hz")
        var period = snd_pcm_uframes_t(request.periodFrames)
        direction = 0
        try check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction), "a period near \(request.periodFrames) frames")
        var buffer = snd_pcm_uframes_t(request.periodFrames * request.periodCount)
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "a buffer near \(request.periodFrames * request.periodCount) frames")
        try check(snd_pcm_hw_params(pcm, hw), "the negotiated hardware parameters")
        snd_pcm_hw_params_get_period_size(hw, &period, &direction)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)

        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        guard let sw else { throw HALError(.io, "ALSA: out of memory for software parameters") }
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "reading software parameters")
        // Start only once the whole buffer is full, so the first period cannot underrun at once.
        try check(snd_pcm_sw_params_set_start_threshold(pcm, sw, buffer), "the start threshold")
        try check(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "the wake-up threshold")
        // The status then carries the kernel's time of its pointer reading, on the box's clock
        // (the sample-to-host-time map's input). A plugin that cannot is still usable: the
        // render loop falls back to reading the clock itself.
        _ = snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE)
        _ = snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC)
        try check(snd_pcm_sw_params(pcm, sw), "the software parameters")
        try check(snd_pcm_prepare(pcm), "preparing")

        let format = AudioFormat(sampleRate: Int(rate), channels: request.channels, periodFrames: Int(period), bufferFrames: Int(buffer))
        return (format, sampleFormat)
    }
}

func alsaError(_ code: Int32) -> String {
    String(cString: snd_strerror(code))
}
