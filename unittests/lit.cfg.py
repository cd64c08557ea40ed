# lit runs ulto's GoogleTest binaries so that one command reports every test.
import os
import lit.formats

config.name = "ulto-unit"
config.test_source_root = os.path.join(config.ulto_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
