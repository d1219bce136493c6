import AppSettings
import Foundation

enum Tour {
    static func run() async {}
}
