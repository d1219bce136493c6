import AppSettings

/// The settings set of the test host (Tests/AppSettingsTestHost): the same stored names under the
/// key postfix the host is given, so that this process and the host read each other's sets.
/// The host writes whole triples: counter n, label "v<n>", values [n, n, n].
class ProcessTripleSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var counter = 0
    @Setting var label = ""
    @Setting var values: [Int] = []

    override var userDefaultsKeyPostfix: String { "Host" }

    func setTriple(_ value: Int) {
        counter = value
        label = "v\(value)"
        values = [value, value, value]
    }

    var isWholeTriple: Bool {
        label == "v\(counter)" && values == [counter, counter, counter]
    }
}

/// The same settings under the postfix "Other": a second set in the same suite.
final class OtherProcessTripleSettings: ProcessTripleSettings, @unchecked Sendable {
    override var userDefaultsKeyPostfix: String { "Other" }
}
