fn main() {
    std::process::exit(rpy::cli::main());
}
