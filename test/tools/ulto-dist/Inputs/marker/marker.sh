#!/bin/sh
touch ran
