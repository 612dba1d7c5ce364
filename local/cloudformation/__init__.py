"""CloudFormation: the synthesized templates (nested stacks too) read and resolved (`template`), and the physical
resources the runtime creates for them on moto (`resources`).
"""
