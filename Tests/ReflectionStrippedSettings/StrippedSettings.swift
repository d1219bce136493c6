import AppSettings

/// A settings class built without reflection metadata (`-disable-reflection-metadata`, what
/// `SWIFT_REFLECTION_METADATA_LEVEL = none` does): reflection sees none of its settings.
public final class StrippedSettings: AppSettingsObject, @unchecked Sendable {
    /// A setting reflection cannot see.
    @Setting public var volume = 3
}
